"""Look-alike: features detached only for the online linear classifier.

Modelled on: https://github.com/vturrisi/solo-learn/issues/135 (counterpart)

.detach() is not in-place: the classifier trains on detached features while
the encoder still receives gradients from the SSL loss.  backward() is called
on the sum, which has a graph.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class BaseMethod(nn.Module):
    def __init__(self, in_dim=16, feat_dim=32, num_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, feat_dim), nn.ReLU())
        self.projector = nn.Linear(feat_dim, 16)
        self.classifier = nn.Linear(feat_dim, num_classes)

    def forward(self, x):
        feats = self.backbone(x)
        logits = self.classifier(feats.detach())
        return {"feats": feats, "logits": logits}

    def training_step(self, x1, x2, y):
        o1, o2 = self(x1), self(x2)
        z1 = F.normalize(self.projector(o1["feats"]), dim=-1)
        z2 = F.normalize(self.projector(o2["feats"]), dim=-1)
        ssl = 2 - 2 * (z1 * z2).sum(-1).mean()
        class_loss = F.cross_entropy(o1["logits"], y)
        return ssl + class_loss


if __name__ == "__main__":
    g = torch.Generator().manual_seed(0)
    m = BaseMethod()
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    for _ in range(3):
        x = torch.randn(8, 16, generator=g)
        y = torch.randint(0, 4, (8,), generator=g)
        loss = m.training_step(x + 0.1 * torch.randn(8, 16, generator=g), x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert m.backbone[0].weight.grad is not None
    print("OK")
