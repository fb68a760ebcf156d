"""GG105 look-alike - torch.tensor(...) built from plain numbers, losses stacked.

Class weights are built with torch.tensor() from python floats (no history is
involved), per-task losses are combined with torch.stack, and an epoch summary
tensor is built from loss.item() values only for logging. Nothing is wrong
here.

Modelled on: https://github.com/lorenmt/mtan/issues/23
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoHeadNet(nn.Module):
    def __init__(self, d_in=10, classes=3):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, 32), nn.ReLU())
        self.cls = nn.Linear(32, classes)
        self.reg = nn.Linear(32, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.cls(h), self.reg(h).squeeze(-1)


def class_weights(labels, classes):
    counts = [max(int((labels == c).sum()), 1) for c in range(classes)]
    total = float(sum(counts))
    return torch.tensor([total / (classes * n) for n in counts], dtype=torch.float32)


def train(model, x, y_cls, y_reg, epochs=3):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    weights = class_weights(y_cls, 3)
    task_w = torch.tensor([1.0, 0.5])
    summary = []
    for epoch in range(epochs):
        logits, reg = model(x)
        losses = [F.cross_entropy(logits, y_cls, weight=weights), F.mse_loss(reg, y_reg)]
        total = (task_w * torch.stack(losses)).sum()
        opt.zero_grad()
        total.backward()
        opt.step()
        summary.append(torch.tensor([l.item() for l in losses]))
        print(f"epoch {epoch}: total {total.item():.4f}")
    return torch.stack(summary)


def main():
    torch.manual_seed(0)
    model = TwoHeadNet()
    x = torch.randn(40, 10)
    y_cls = torch.randint(0, 3, (40,))
    y_reg = torch.randn(40)
    w0 = model.trunk[0].weight.detach().clone()
    hist = train(model, x, y_cls, y_reg)
    assert hist.shape == (3, 2)
    assert not torch.equal(w0, model.trunk[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
