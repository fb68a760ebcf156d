"""GG301 look-alike: in-place updates of leaf parameters, all inside torch.no_grad().

A regression model trained with a hand-written SGD step (`p -= lr * p.grad`), a weight
clamp after each update (WGAN-style clipping) and a column re-scaling of the first layer.
Every in-place change to a parameter happens under torch.no_grad(), which is exactly how
such updates must be written. Correct code.

Modelled on: https://github.com/Hunter-DDM/knowledge-neurons/issues/14 (the same
`weight[:, pos] -= ...` edit, done under no_grad)
"""
import torch
import torch.nn as nn

CFG = dict(in_dim=8, hidden=16, lr=0.05, clip=0.5, steps=20, rescale_cols=(0, 3))


class MLP(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x))).squeeze(-1)


def sgd_step(model, lr, clip):
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
            p.clamp_(-clip, clip)
            p.grad.zero_()


def rescale_inputs(model, cols, factor):
    with torch.no_grad():
        for c in cols:
            model.fc1.weight[:, c] *= factor


def evaluate(model, x, y):
    with torch.no_grad():
        return ((model(x) - y) ** 2).mean().item()


def main():
    torch.manual_seed(0)
    model = MLP(CFG["in_dim"], CFG["hidden"])
    x = torch.randn(64, CFG["in_dim"])
    y = x[:, 0] - 0.5 * x[:, 3]
    first = None
    for step in range(CFG["steps"]):
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        sgd_step(model, CFG["lr"], CFG["clip"])
        first = loss.item() if first is None else first
    rescale_inputs(model, CFG["rescale_cols"], 0.9)
    print(f"loss {first:.4f} -> {loss.item():.4f} (eval {evaluate(model, x, y):.4f})")
    assert all(p.is_leaf and p.requires_grad for p in model.parameters())


if __name__ == "__main__":
    main()
    print("OK")
