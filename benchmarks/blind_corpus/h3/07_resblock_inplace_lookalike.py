"""GG302 look-alike (correct code).

A residual MLP block uses several in-place ops on intermediate tensors:
the Linear output is shifted with add_ and then passed through relu_,
the residual sum uses `+=` on a fresh tensor, and the logits are clamped in
place only after backward() for a logging statistic.  None of the modified
tensors has been saved by an earlier op that needs it for backward
(addmm saves its inputs, not its output; the `+=` target is a fresh sum),
so backward works.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ResidualBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, dim)
        self.fc2 = nn.Linear(dim, dim)
        self.shift = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        h = self.fc1(x)
        h.add_(0.1)               # addmm output, not saved by anyone yet
        h = F.relu(h, inplace=True)
        out = self.fc2(h) * 1.0
        out += x                  # `out` is a fresh product, nothing saved it
        return out + self.shift


class Net(nn.Module):
    def __init__(self, d_in=6, dim=16, n_out=3):
        super().__init__()
        self.inp = nn.Linear(d_in, dim)
        self.blocks = nn.Sequential(ResidualBlock(dim), ResidualBlock(dim))
        self.out = nn.Linear(dim, n_out)

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))


def train_step(model, opt, xb, yb):
    logits = model(xb)
    loss = F.cross_entropy(logits, yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        clipped = logits.detach()
        clipped.clamp_(-5, 5)     # after backward: nothing needs it any more
        margin = (clipped.max(1).values - clipped.mean(1)).mean().item()
    return loss.item(), margin


def main():
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(40, 6), torch.randint(0, 3, (40,))
    for epoch in range(3):
        for i in range(0, 40, 10):
            loss, margin = train_step(model, opt, x[i:i + 10], y[i:i + 10])
        print(f"epoch {epoch} loss {loss:.3f} margin {margin:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
