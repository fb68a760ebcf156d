"""Look-alike: argmax accuracy computed next to the loss, but only logged.

Modelled on: https://github.com/fundamentalvision/Uni-Perceiver/issues/2 (counterpart)

backward() is called on the cross-entropy; the argmax/comparison accuracy goes
into the log dict as a Python float.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Tower(nn.Module):
    def __init__(self, d=12, c=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, 24), nn.GELU(), nn.Linear(24, c))

    def forward(self, x):
        return self.enc(x)


def step(model, opt, x, y, log):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    acc = (logits.argmax(-1) == y).float().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    log.append({"loss": loss.item(), "acc": acc.item()})


if __name__ == "__main__":
    torch.manual_seed(0)
    model, log = Tower(), []
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        step(model, opt, torch.randn(8, 12), torch.randint(0, 4, (8,)), log)
    assert len(log) == 3
    print("OK")
