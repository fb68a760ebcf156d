"""GG104 - backward() through a model whose every parameter is frozen.

Mistake: the `tune()` helper freezes the whole embedding model when
freeze=True and only attaches a trainable projection head when an output_dim is
given.  Called with freeze=True and no output_dim, nothing is trainable, so the
triplet loss has no graph and backward() raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/jina-ai/finetuner/issues/435
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

DEFAULTS = {"epochs": 2, "batch_size": 8, "lr": 1e-3, "margin": 0.2,
            "freeze": True, "output_dim": None}


class TinyResNetEmbedder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.block = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, dim)

    def forward(self, x):
        h = self.stem(x)
        h = h + self.block(h)
        return self.fc(self.pool(h).flatten(1))


def to_embedding_model(model, freeze=False, output_dim=None):
    if freeze:
        for p in model.parameters():
            p.requires_grad = False
    if output_dim is not None:
        in_dim = model.fc.out_features
        model = nn.Sequential(model, nn.Linear(in_dim, output_dim))
    return model


def triplet_batches(x, labels):
    anchors, positives, negatives = [], [], []
    for i in range(len(labels)):
        same = (labels == labels[i]).nonzero().flatten()
        diff = (labels != labels[i]).nonzero().flatten()
        if len(same) > 1 and len(diff) > 0:
            anchors.append(x[i])
            positives.append(x[same[same != i][0]])
            negatives.append(x[diff[0]])
    return torch.stack(anchors), torch.stack(positives), torch.stack(negatives)


def fit(model, loader, epochs, lr, margin):
    params = [p for p in model.parameters()]
    optimizer = torch.optim.Adam(params, lr=lr)
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            a, p, n = triplet_batches(x, y)
            ea, ep, en = model(a), model(p), model(n)
            loss = F.triplet_margin_loss(F.normalize(ea, dim=1), F.normalize(ep, dim=1),
                                         F.normalize(en, dim=1), margin=margin)
            optimizer.zero_grad()
            loss.backward()  # bug: GG104
            optimizer.step()
        print(f"epoch {epoch}: triplet loss {loss.item():.4f}")
    return model


def tune(model, train_data, **kwargs):
    cfg = {**DEFAULTS, **kwargs}
    model = to_embedding_model(model, freeze=cfg["freeze"], output_dim=cfg["output_dim"])
    loader = DataLoader(train_data, batch_size=cfg["batch_size"], shuffle=True)
    return fit(model, loader, cfg["epochs"], cfg["lr"], cfg["margin"])


def main():
    torch.manual_seed(0)
    images = torch.randn(32, 3, 16, 16)
    labels = torch.arange(4).repeat(8)
    backbone = TinyResNetEmbedder()
    tune(backbone, TensorDataset(images, labels), freeze=True)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
