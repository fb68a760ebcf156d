"""GG112 look-alike - reentrant checkpointing of stages fed by a trainable stem.

A memory-efficient CNN wraps each stage in
torch.utils.checkpoint.checkpoint(stage, x, use_reentrant=True).  The images do
not require grad, but the first checkpoint receives the output of a trainable
stem convolution, and every later one receives the previous checkpoint's
output, so every checkpoint input requires grad and all stages are trained.
Prints OK.

Modelled on: none found
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint
from torch.utils.data import DataLoader, TensorDataset


def stage(in_ch, out_ch):
    return nn.Sequential(nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=False), nn.BatchNorm2d(out_ch), nn.ReLU(),
                         nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False), nn.BatchNorm2d(out_ch), nn.ReLU())


class EfficientNetLike(nn.Module):
    def __init__(self, num_classes=5, memory_efficient=True):
        super().__init__()
        self.memory_efficient = memory_efficient
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.stages = nn.ModuleList([stage(8, 8), stage(8, 16), stage(16, 16)])
        self.classifier = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.stem(x)
        for i, s in enumerate(self.stages):
            if self.memory_efficient and self.training:
                x = checkpoint(s, x, use_reentrant=True)
            else:
                x = s(x)
            if i < len(self.stages) - 1:
                x = F.max_pool2d(x, 2)
        return self.classifier(F.adaptive_avg_pool2d(x, 1).flatten(1))


def train(model, loader, optimizer, criterion, epochs=2):
    for epoch in range(epochs):
        model.train()
        running = 0.0
        for i, (images, labels) in enumerate(loader):
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
            running += loss.item()
        print(f"epoch {epoch}: loss {running / (i + 1):.4f}")


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 3, 16, 16), torch.randint(0, 5, (16,)))
    model = EfficientNetLike()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    first_stage_w = model.stages[0][0].weight.detach().clone()
    train(model, DataLoader(data, batch_size=4, shuffle=True), optimizer, nn.CrossEntropyLoss())
    assert model.stages[0][0].weight.grad is not None
    assert not torch.equal(first_stage_w, model.stages[0][0].weight)


if __name__ == "__main__":
    main()
    print("OK")
