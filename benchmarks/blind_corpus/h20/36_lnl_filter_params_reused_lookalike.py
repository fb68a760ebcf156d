"""GG610 look-alike - model.parameters() iterated several times, but a fresh generator each time.

The trainer passes filter(..., self.net.parameters()) to the optimizer and,
on every step, calls self.net.parameters() again for clipping and for the
gradient-norm log. Each call builds a new generator, so nothing is exhausted.

Modelled on: https://github.com/feidfoe/learning-not-to-learn/issues/3
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPTION = dict(lr=0.1, momentum=0.9, max_grad_norm=0.5, n_class=10, steps=3)


class Net(nn.Module):
    def __init__(self, n_class):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, n_class)

    def forward(self, x):
        return self.fc(F.adaptive_avg_pool2d(F.relu(self.conv(x)), 1).flatten(1))


class Trainer:
    def __init__(self, option):
        self.option = option
        self.net = Net(option["n_class"])
        self.net.conv.bias.requires_grad = False
        self.optim = torch.optim.SGD(filter(lambda p: p.requires_grad, self.net.parameters()),
                                     lr=option["lr"], momentum=option["momentum"])

    def grad_norm(self):
        return torch.norm(torch.stack([p.grad.norm() for p in self.net.parameters() if p.grad is not None]))

    def step(self, x, y):
        self.optim.zero_grad()
        loss = F.cross_entropy(self.net(x), y) * 50.0
        loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), self.option["max_grad_norm"])
        after = self.grad_norm().item()
        self.optim.step()
        return loss.item(), after


def main():
    torch.manual_seed(0)
    tr = Trainer(OPTION)
    for s in range(OPTION["steps"]):
        loss, after = tr.step(torch.randn(8, 3, 16, 16), torch.randint(0, OPTION["n_class"], (8,)))
        print(f"step {s} loss {loss:.3f} grad norm after clip {after:.3f}")
        assert after <= OPTION["max_grad_norm"] * 1.01


if __name__ == "__main__":
    main()
    print("OK")
