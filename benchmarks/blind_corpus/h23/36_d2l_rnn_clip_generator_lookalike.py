"""GG610 look-alike - several passes over parameters, each with a fresh generator.

An LSTM tagger script counts parameters with ``sum(p.numel() for p in
model.parameters())``, freezes the embedding, builds the optimizer from a
``filter(...)`` generator stored in a variable (consumed exactly once, by the
optimizer constructor), and clips with ``clip_grad_norm_(model.parameters())``
every step.  Each pass calls ``model.parameters()`` anew, and the stored
generator is never iterated a second time, so nothing is silently empty.
Runs cleanly; clipping is effective.

Modelled on: https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/101 (correct variant)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

HP = {"vocab": 30, "emb": 12, "hidden": 16, "tags": 5, "seq": 9, "batch": 4, "clip": 0.05, "steps": 3}


class LSTMTagger(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.embedding = nn.Embedding(hp["vocab"], hp["emb"])
        self.lstm = nn.LSTM(hp["emb"], hp["hidden"], batch_first=True, bidirectional=True)
        self.proj = nn.Linear(2 * hp["hidden"], hp["tags"])

    def forward(self, tokens):
        out, _ = self.lstm(self.embedding(tokens))
        return self.proj(out)


def count_parameters(model):
    total = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return total, trainable


def main():
    torch.manual_seed(0)
    model = LSTMTagger(HP)
    model.embedding.weight.requires_grad_(False)
    total, trainable = count_parameters(model)
    print(f"params: {total} total, {trainable} trainable")
    trainable_params = filter(lambda p: p.requires_grad, model.parameters())
    optimizer = torch.optim.Adam(trainable_params, lr=1e-2)
    assert sum(p.numel() for g in optimizer.param_groups for p in g["params"]) == trainable
    for step in range(HP["steps"]):
        tokens = torch.randint(0, HP["vocab"], (HP["batch"], HP["seq"]))
        tags = torch.randint(0, HP["tags"], (HP["batch"], HP["seq"]))
        loss = F.cross_entropy(model(tokens).reshape(-1, HP["tags"]), tags.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), HP["clip"])
        after = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters() if p.grad is not None))
        assert float(after) <= HP["clip"] * 1.001
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f} clipped norm {float(after):.4f}")


if __name__ == "__main__":
    main()
    print("OK")
