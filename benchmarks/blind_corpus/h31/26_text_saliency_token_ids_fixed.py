"""Gradient saliency for a text classifier built on nn.Embedding.

Modelled on: https://github.com/pytorch/pytorch/issues/7021

In the report the user called `.requires_grad_()` on the LongTensor of token
indices fed to nn.Embedding, wanting gradients "with respect to the input".
Indices are integers and are not differentiable; PyTorch first failed deep
inside backward ("No grad accumulator for a saved leaf") and, after the fix
that issue triggered, refuses up front: "only Tensors of floating point and
complex dtype can require gradients".  This saliency helper makes the same
request on the batch of token ids.

Fixed version: the gradient is taken with respect to the embedded tokens
(a float tensor) and reduced to one saliency value per token.
"""
import argparse

import torch
import torch.nn as nn


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--vocab", type=int, default=100)
    p.add_argument("--dim", type=int, default=16)
    p.add_argument("--classes", type=int, default=3)
    p.add_argument("--seq", type=int, default=12)
    return p.parse_args(argv)


class BagOfEmbeddings(nn.Module):
    def __init__(self, vocab, dim, classes):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim, padding_idx=0)
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
        self.out = nn.Linear(dim, classes)

    def embed(self, token_ids):
        return self.embedding(token_ids)

    def classify(self, embedded, mask):
        pooled = (self.proj(embedded) * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
        return self.out(pooled)

    def forward(self, token_ids):
        mask = (token_ids != 0).float()
        return self.classify(self.embed(token_ids), mask)


def encode(sentences, vocab, seq):
    ids = torch.zeros(len(sentences), seq, dtype=torch.long)
    for i, sent in enumerate(sentences):
        toks = [sum(map(ord, w)) % (vocab - 1) + 1 for w in sent.split()][:seq]
        ids[i, :len(toks)] = torch.tensor(toks)
    return ids


class SaliencyExplainer:
    def __init__(self, model):
        self.model = model.eval()

    def token_saliency(self, token_ids, target):
        # differentiate w.r.t. the (float) embedded tokens, not the integer ids
        mask = (token_ids != 0).float()
        embedded = self.model.embed(token_ids).detach().requires_grad_(True)
        logits = self.model.classify(embedded, mask)
        score = logits.gather(1, target.unsqueeze(1)).sum()
        score.backward()
        return embedded.grad.norm(dim=-1)


def main(argv=None):
    torch.manual_seed(0)
    args = get_args(argv)
    model = BagOfEmbeddings(args.vocab, args.dim, args.classes)
    batch = encode(["the film was great fun", "a dull and tedious plot"], args.vocab, args.seq)
    target = model(batch).argmax(1)
    return SaliencyExplainer(model).token_saliency(batch, target)


if __name__ == "__main__":
    sal = main([])
    assert sal.shape == (2, 12)
    print("FIXED: ok")
