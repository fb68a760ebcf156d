"""Training loop that clears gradients at the end of each iteration.

Modelled on: https://learn.biosrag.com/ai/experiences/zero-grad.html (counterpart)

Look-alike: zero_grad() comes right after a backward() call in the source,
but only after step() has consumed the gradients (forward -> backward ->
clip -> step -> zero_grad), which the article lists as a valid placement.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d_in=10, hidden=32, d_out=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, d_out))

    def forward(self, x):
        return self.net(x)


class Runner:
    def __init__(self, model, lr=0.1, clip=1.0):
        self.model = model
        self.clip = clip
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.optimizer.zero_grad()

    def step(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    runner = Runner(MLP())
    before = [p.detach().clone() for p in runner.model.parameters()]
    for _ in range(3):
        runner.step(torch.randn(16, 10), torch.randint(0, 3, (16,)))
    assert any(not torch.equal(a, b) for a, b in zip(before, runner.model.parameters()))
    print("OK")
