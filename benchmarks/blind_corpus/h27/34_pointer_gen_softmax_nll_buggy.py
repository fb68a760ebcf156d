"""Pointer-generator decoder: softmax probabilities given to NLLLoss.

Modelled on: https://github.com/mjc92/GetToThePoint/issues/8

The decoder computes its vocabulary distribution with `F.softmax` and the
copy distribution from attention, mixes them with p_gen, and the trainer
feeds the resulting *probabilities* to `nn.NLLLoss()`.  NLLLoss expects
log-probabilities: on probabilities it returns `-p[target]`, a negative
number in [-1, 0], whose gradient is not the cross-entropy gradient.  The
reported fix is log_softmax + NLLLoss (or logits + CrossEntropyLoss).
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class PointerGenDecoder(nn.Module):
    def __init__(self, vocab=30, hidden=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)
        self.p_gen = nn.Linear(hidden, 1)
        self.vocab = vocab

    def forward(self, enc_ids, enc_states, dec_ids):
        h, _ = self.rnn(self.emb(dec_ids))                          # (B, T, H)
        attn = F.softmax(torch.bmm(h, enc_states.transpose(1, 2)), dim=-1)  # (B, T, S)
        vocab_dist = F.softmax(self.out(h), dim=-1)                 # (B, T, V)
        p_gen = torch.sigmoid(self.p_gen(h))                        # (B, T, 1)
        copy_dist = torch.zeros_like(vocab_dist).scatter_add(
            2, enc_ids.unsqueeze(1).expand(-1, h.size(1), -1), attn)
        return p_gen * vocab_dist + (1 - p_gen) * copy_dist


class Seq2SeqTrainer:
    def __init__(self, model, lr):
        self.model = model
        self.criterion = nn.NLLLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def train_step(self, enc_ids, enc_states, dec_in, dec_out):
        self.optimizer.zero_grad()
        final_dist = self.model(enc_ids, enc_states, dec_in)
        loss = self.criterion(final_dist.flatten(0, 1), dec_out.flatten())  # bug: GG113
        loss.backward()
        self.optimizer.step()
        return loss.item()


def make_batch(bs=4, src_len=5, tgt_len=4, vocab=30, hidden=16):
    enc_ids = torch.randint(0, vocab, (bs, src_len))
    enc_states = torch.randn(bs, src_len, hidden)
    tgt = torch.randint(0, vocab, (bs, tgt_len + 1))
    return enc_ids, enc_states, tgt[:, :-1], tgt[:, 1:]


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args(argv)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    trainer = Seq2SeqTrainer(PointerGenDecoder(), args.lr)
    losses = [trainer.train_step(*make_batch()) for _ in range(args.steps)]
    if min(losses) < 0:
        print(f"BUGGY: NLL loss is negative ({min(losses):.3f}): probabilities were passed instead of log-probs")
    else:
        print("FIXED: ok")


if __name__ == "__main__":
    main([])
