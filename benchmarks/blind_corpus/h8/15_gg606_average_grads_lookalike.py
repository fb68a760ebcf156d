"""GG606 look-alike - accumulation without dividing the loss, but the gradients are averaged.

The segmentation-style loop accumulates `ACCUM` micro-batches and back-propagates
each mean loss at full scale - the shape of the "forgot to divide" bug.  Before
clipping and stepping, however, `average_accumulated_grads()` divides every
`.grad` by the number of micro-batches, which is mathematically the same as
dividing the loss.
Correct: the gradient used by each step equals the gradient of the equivalent
large batch.

Modelled on: https://github.com/NVIDIA/DeepLearningExamples/issues/625
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ACCUM = 3
BATCH = 4
EPOCHS = 1
LR = 0.02
CLIP = 100.0


class TinyUNet(nn.Module):
    def __init__(self, in_ch=1, n_classes=2, width=8):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(in_ch, width, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(width, width, 3, padding=1), nn.ReLU())
        self.pool = nn.MaxPool2d(2)
        self.mid = nn.Sequential(nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(2 * width, width, 2, stride=2)
        self.out = nn.Conv2d(2 * width, n_classes, 1)

    def forward(self, x):
        skip = self.down(x)
        x = self.up(self.mid(self.pool(skip)))
        return self.out(torch.cat([x, skip], dim=1))


def average_accumulated_grads(model, n_micro):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.div_(n_micro)


def train(model, loader, optimizer, epochs):
    seen_norms = []
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        for i, (img, mask) in enumerate(loader):
            loss = F.cross_entropy(model(img), mask)
            loss.backward()
            if (i + 1) % ACCUM == 0:
                average_accumulated_grads(model, ACCUM)
                norm = torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
                seen_norms.append(norm.item())
                optimizer.step()
                optimizer.zero_grad()
        print(f"epoch {epoch}: last loss {loss.item():.4f}")
    return seen_norms


def main():
    img = torch.randn(24, 1, 16, 16)
    mask = (img[:, 0] > 0.3).long()
    dataset = TensorDataset(img, mask)
    model = TinyUNet()
    ref = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    norms = train(model, DataLoader(dataset, batch_size=BATCH, shuffle=False), optimizer, EPOCHS)
    x, y = dataset[: BATCH * ACCUM]
    F.cross_entropy(ref(x), y).backward()
    expected = torch.norm(torch.stack([p.grad.norm() for p in ref.parameters()])).item()
    return norms, expected


def check_training():
    torch.manual_seed(0)
    norms, expected = main()
    assert abs(norms[0] / expected - 1.0) < 1e-3, f"step gradient off by {norms[0] / expected:.2f}x"


if __name__ == "__main__":
    check_training()
    print("OK")
