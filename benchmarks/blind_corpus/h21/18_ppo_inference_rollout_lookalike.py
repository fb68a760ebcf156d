"""GG106 look-alike - torch.inference_mode() for feature caching and evaluation.

Features of a frozen backbone are precomputed once under inference_mode and
then cloned into normal tensors before the linear probe is trained on them;
validation also runs under inference_mode but never calls backward. Nothing is
wrong here.

Modelled on: https://github.com/hiyouga/LlamaFactory/issues/220
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(2), nn.Flatten())

    def forward(self, x):
        return self.net(x)


@torch.inference_mode()
def extract(backbone, images):
    return backbone(images)


@torch.inference_mode()
def evaluate(probe, feats, labels):
    return (probe(feats).argmax(-1) == labels).float().mean().item()


def main():
    torch.manual_seed(0)
    backbone = Backbone().eval()
    images = torch.randn(40, 1, 8, 8)
    labels = torch.randint(0, 3, (40,))
    cached = extract(backbone, images).clone()
    assert not cached.is_inference()

    probe = nn.Linear(cached.shape[1], 3)
    opt = torch.optim.SGD(probe.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(cached, labels), batch_size=10, shuffle=True)
    for epoch in range(3):
        for f, y in loader:
            loss = F.cross_entropy(probe(f), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        val_feats = extract(backbone, images[:10])
        print(f"epoch {epoch}: loss {loss.item():.4f} val acc {evaluate(probe, val_feats, labels[:10]):.2f}")


if __name__ == "__main__":
    main()
    print("OK")
