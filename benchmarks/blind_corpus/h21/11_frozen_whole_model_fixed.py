"""GG104 (fixed) - backward() through a model whose every parameter is frozen.

Fix: only model.llm is frozen; the projector stays trainable and the optimizer
gets the trainable parameters.

A retrieval-QA model wraps a small pretrained language encoder (`llm`) and a
trainable graph projector. The `--freeze_llm` option is meant to freeze only
the language encoder, but `freeze()` is applied to the whole model, so no
parameter requires grad and the loss has no grad_fn.
torch raises: RuntimeError: element 0 of tensors does not require grad and does
not have a grad_fn

Modelled on: https://github.com/pyg-team/pytorch_geometric/pull/9996
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--vocab", type=int, default=50)
    p.add_argument("--d_model", type=int, default=32)
    p.add_argument("--node_dim", type=int, default=8)
    p.add_argument("--seq_len", type=int, default=10)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--freeze_llm", action="store_true", default=True)
    return p.parse_args(argv or [])


class TinyLM(nn.Module):
    def __init__(self, vocab, d_model):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead=4, dim_feedforward=64, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1)
        self.lm_head = nn.Linear(d_model, vocab)

    def forward(self, tokens, prefix=None):
        h = self.embed(tokens)
        if prefix is not None:
            h = torch.cat([prefix.unsqueeze(1), h], dim=1)
        return self.lm_head(self.encoder(h))


class GraphProjector(nn.Module):
    def __init__(self, node_dim, d_model):
        super().__init__()
        self.gnn = nn.Sequential(nn.Linear(node_dim, d_model), nn.ReLU(), nn.Linear(d_model, d_model))

    def forward(self, node_feats):
        return self.gnn(node_feats).mean(dim=1)


class GraphQA(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.llm = TinyLM(args.vocab, args.d_model)
        self.projector = GraphProjector(args.node_dim, args.d_model)

    def forward(self, tokens, nodes):
        logits = self.llm(tokens, prefix=self.projector(nodes))
        return logits[:, 1:]


def freeze(module):
    for p in module.parameters():
        p.requires_grad = False


def train(model, optimizer, batches, epochs):
    model.train()
    for epoch in range(epochs):
        total = 0.0
        for tokens, nodes in batches:
            logits = model(tokens[:, :-1], nodes)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
            optimizer.zero_grad()
            loss.backward()  # fixed: GG104
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / len(batches):.4f}")


def main():
    args = parse_args()
    torch.manual_seed(0)
    model = GraphQA(args)
    if args.freeze_llm:
        freeze(model.llm)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    batches = [(torch.randint(0, args.vocab, (4, args.seq_len)), torch.randn(4, 5, args.node_dim))
               for _ in range(3)]
    train(model, optimizer, batches, args.epochs)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
