"""GG109 - pairwise ranking loss computed in Python, re-wrapped with requires_grad=True.

The margin-ranking loss is summed in plain Python over `scores.tolist()`. The first run
failed with "element 0 of tensors does not require grad", so the author wrapped the
number as `torch.tensor(value, requires_grad=True)`. Now backward() runs, but that
tensor is a fresh leaf: no gradient reaches the model, `.grad` stays None and
optimizer.step() leaves every weight unchanged (silent; training does nothing).
"""
import itertools

import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self, in_dim=8):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, docs):
        return self.mlp(docs).squeeze(-1)


def pairwise_hinge(scores, relevance, margin=1.0):
    s, r = scores.tolist(), relevance.tolist()
    total, n_pairs = 0.0, 0
    for i, j in itertools.permutations(range(len(s)), 2):
        if r[i] > r[j]:
            total += max(0.0, margin - (s[i] - s[j]))
            n_pairs += 1
    return total / max(n_pairs, 1)


def train(model, queries, optimizer, epochs=3):
    log = []
    for epoch in range(epochs):
        for qid, (docs, relevance) in enumerate(queries):
            scores = model(docs)
            loss = torch.tensor(pairwise_hinge(scores, relevance), requires_grad=True)  # bug: GG109
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
    if changed:
        raise SystemExit("NO BUG")
    assert all(g is None for g in grads)
    print("BUGGY: after 12 optimizer steps no weight changed and every .grad is None")
