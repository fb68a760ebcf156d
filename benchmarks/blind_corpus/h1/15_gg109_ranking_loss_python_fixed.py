"""GG109 (fixed) - pairwise ranking loss computed with tensor operations.

Fix: the hinge terms are computed on the score tensor itself (pairwise differences,
clamp, mask), so the loss keeps its graph; no requires_grad=True is needed and the
scorer's weights are updated.

Mistake fixed: pairwise ranking loss computed in Python, re-wrapped with requires_grad=True.
The buggy version runs but silently trains nothing (weights never change)
"""
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self, in_dim=8):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, docs):
        return self.mlp(docs).squeeze(-1)


def pairwise_hinge(scores, relevance, margin=1.0):
    diff = scores.unsqueeze(1) - scores.unsqueeze(0)
    better = (relevance.unsqueeze(1) > relevance.unsqueeze(0)).float()
    hinge = (margin - diff).clamp(min=0.0) * better
    return hinge.sum() / better.sum().clamp(min=1.0)


def train(model, queries, optimizer, epochs=3):
    log = []
    for epoch in range(epochs):
        for qid, (docs, relevance) in enumerate(queries):
            scores = model(docs)
            loss = pairwise_hinge(scores, relevance)  # fixed: GG109
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            log.append((epoch, qid, loss.item()))
        print(f"epoch {epoch}: last loss={log[-1][2]:.4f}")
    return log


def main():
    torch.manual_seed(0)
    queries = [(torch.randn(6, 8), torch.randint(0, 3, (6,)).float()) for _ in range(4)]
    model = Scorer()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train(model, queries, optimizer)
    changed = [k for k, v in model.state_dict().items() if not torch.equal(v, before[k])]
    return changed, [p.grad for p in model.parameters()]


if __name__ == "__main__":
    changed, grads = main()
    assert changed and all(g is not None for g in grads)
    print("FIXED: ok")
