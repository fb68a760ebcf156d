"""Category GG201 - FIXED version: the carried LSTM state is detached between chunks.

A streaming frame classifier keeps the LSTM state returned for one chunk of a long
recording and feeds it as the initial state of the next chunk (stateful training).
Detaching (h, c) keeps the values but starts a fresh graph for every chunk
(truncated BPTT), so each backward() only walks the current chunk.

Modelled on: https://github.com/NX-AI/xlstm/issues/96
"""
import argparse
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args(argv=None):
    p = argparse.ArgumentParser(description="stateful streaming encoder")
    p.add_argument("--feat-dim", type=int, default=20)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--num-classes", type=int, default=5)
    p.add_argument("--chunk-len", type=int, default=12)
    p.add_argument("--num-chunks", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--clip", type=float, default=1.0)
    return p.parse_args(argv)


class FrameEncoder(nn.Module):
    def __init__(self, feat_dim, hidden, layers):
        super().__init__()
        self.proj = nn.Linear(feat_dim, hidden)
        self.rnn = nn.LSTM(hidden, hidden, num_layers=layers, batch_first=True)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, feats, states=None):
        x = F.gelu(self.proj(feats))
        out, new_states = self.rnn(x, states)
        return self.norm(out), new_states


class StreamingTagger(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.encoder = FrameEncoder(args.feat_dim, args.hidden, args.layers)
        self.head = nn.Linear(args.hidden, args.num_classes)

    def forward(self, feats, states=None):
        enc_out, new_states = self.encoder(feats, states)
        return self.head(enc_out), new_states


def make_stream(args):
    """A few long recordings cut into consecutive chunks (random data)."""
    total = args.chunk_len * args.num_chunks
    feats = torch.randn(args.batch_size, total, args.feat_dim)
    labels = torch.randint(0, args.num_classes, (args.batch_size, total))
    for c in range(args.num_chunks):
        sl = slice(c * args.chunk_len, (c + 1) * args.chunk_len)
        yield c, feats[:, sl], labels[:, sl]


def train(args):
    device = torch.device("cpu")
    model = StreamingTagger(args).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    input_state = None
    history = []
    model.train()
    for step, feats, labels in make_stream(args):
        feats, labels = feats.to(device), labels.to(device)
        logits, output_state = model(feats, input_state)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        # keep the recurrent context for the next chunk of the same recordings
        input_state = tuple(s.detach() for s in output_state)  # fixed: GG201
        history.append(loss.item())
        print(f"chunk {step}: loss={loss.item():.4f}")
    return history


if __name__ == "__main__":
    torch.manual_seed(0)
    hist = train(get_args([]))
    assert len(hist) == 4
    print("FIXED: ok")
