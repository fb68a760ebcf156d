"""Fixed: the attached total loss is returned; only the log copy is detached.

Modelled on: https://github.com/vturrisi/solo-learn/issues/135

The report asks whether calling .detach() in the base method stops the
encoder from learning.  In solo-learn only the online classifier sees detached
features; here the method goes one step further: training_step() returns the
detached loss it puts into the log dict and the trainer backpropagates that.
The detached tensor has no grad_fn, so loss.backward() raises.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, in_dim=16, feat_dim=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, feat_dim), nn.ReLU(),
                                 nn.Linear(feat_dim, feat_dim))

    def forward(self, x):
        return self.net(x)


class BaseMethod(nn.Module):
    def __init__(self, num_classes=4, feat_dim=32):
        super().__init__()
        self.backbone = Encoder(feat_dim=feat_dim)
        self.projector = nn.Linear(feat_dim, 16)
        self.classifier = nn.Linear(feat_dim, num_classes)

    def ssl_loss(self, z1, z2):
        z1, z2 = F.normalize(z1, dim=-1), F.normalize(z2, dim=-1)
        return 2 - 2 * (z1 * z2).sum(-1).mean()

    def training_step(self, batch):
        x1, x2, y = batch
        f1, f2 = self.backbone(x1), self.backbone(x2)
        logits = self.classifier(f1.detach())
        class_loss = F.cross_entropy(logits, y)
        ssl = self.ssl_loss(self.projector(f1), self.projector(f2))
        total = ssl + class_loss
        log = {"train_loss": total.detach(), "train_acc": (logits.argmax(1) == y).float().mean()}
        return total, log


def augment(x, g):
    return x + 0.1 * torch.randn(x.shape, generator=g)


def run(method, steps=3):
    g = torch.Generator().manual_seed(0)
    opt = torch.optim.SGD(method.parameters(), lr=0.1)
    for _ in range(steps):
        x = torch.randn(8, 16, generator=g)
        y = torch.randint(0, 4, (8,), generator=g)
        loss, log = method.training_step((augment(x, g), augment(x, g), y))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return method


if __name__ == "__main__":
    m = run(BaseMethod())
    assert all(p.grad is not None for p in m.backbone.parameters())
    print("FIXED: ok")
