"""GG112 look-alike - reentrant checkpoint fed by a trainable stem.

A memory-efficient DenseNet-style CNN wraps each dense layer's bottleneck in
torch.utils.checkpoint.checkpoint(..., use_reentrant=True). The image itself
does not require grad, but the first checkpointed segment receives the output of
a trainable convolutional stem, which does require grad, so every checkpointed
layer gets gradients. Correct code.

Modelled on: none found (efficient DenseNet checkpointing pattern).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint as cp
from torch.utils.data import DataLoader, TensorDataset

CFG = {"growth": 8, "layers": 3, "classes": 4, "lr": 0.05, "efficient": True}


class DenseLayer(nn.Module):
    def __init__(self, in_ch, growth, efficient):
        super().__init__()
        self.norm1, self.conv1 = nn.BatchNorm2d(in_ch), nn.Conv2d(in_ch, 4 * growth, 1, bias=False)
        self.norm2, self.conv2 = nn.BatchNorm2d(4 * growth), nn.Conv2d(4 * growth, growth, 3, padding=1, bias=False)
        self.efficient = efficient

    def bottleneck(self, *prev):
        return self.conv1(F.relu(self.norm1(torch.cat(prev, 1))))

    def forward(self, prev_features):
        if self.efficient and any(t.requires_grad for t in prev_features):
            out = cp.checkpoint(self.bottleneck, *prev_features, use_reentrant=True)
        else:
            out = self.bottleneck(*prev_features)
        return self.conv2(F.relu(self.norm2(out)))


class TinyDenseNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        ch = 16
        self.layers = nn.ModuleList()
        for _ in range(cfg["layers"]):
            self.layers.append(DenseLayer(ch, cfg["growth"], cfg["efficient"]))
            ch += cfg["growth"]
        self.fc = nn.Linear(ch, cfg["classes"])

    def forward(self, x):
        feats = [self.stem(x)]
        for layer in self.layers:
            feats.append(layer(feats))
        return self.fc(F.adaptive_avg_pool2d(torch.cat(feats, 1), 1).flatten(1))


def main():
    torch.manual_seed(11)
    loader = DataLoader(TensorDataset(torch.randn(16, 3, 12, 12), torch.randint(0, 4, (16,))), batch_size=8)
    model = TinyDenseNet(CFG)
    opt = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=0.9)
    w0 = model.layers[0].conv1.weight.detach().clone()
    model.train()
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        assert model.layers[0].conv1.weight.grad is not None
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}")
    assert not torch.equal(w0, model.layers[0].conv1.weight)


if __name__ == "__main__":
    main()
    print("OK")
