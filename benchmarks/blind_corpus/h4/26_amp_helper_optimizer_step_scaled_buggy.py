"""GG609 - optimizer.step() on gradients a GradScaler still scales.

A small CNN is trained with mixed precision. The backward_and_step helper scales the loss
for backward() but then calls optimizer.step() directly instead of scaler.step(optimizer),
and never unscales. The optimizer therefore applies gradients multiplied by the loss scale
(65536 by default): the first step moves the weights by thousands of times the intended
amount and the loss blows up. No error is raised (silent).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyCNN(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.head = nn.Linear(8, n_classes)

    def forward(self, x):
        return self.head(self.conv(x).mean(dim=(2, 3)))


def backward_and_step(loss, optimizer, scaler):
    scaler.scale(loss).backward()
    optimizer.step()  # bug: GG609
    optimizer.zero_grad(set_to_none=True)


def train(model, batches, optimizer, scaler, device):
    model.train()
    losses = []
    for step, (images, labels) in enumerate(batches):
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            logits = model(images.to(device))
        loss = F.cross_entropy(logits.float(), labels.to(device))
        backward_and_step(loss, optimizer, scaler)
        losses.append(loss.item())
    return losses


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = TinyCNN().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    scaler = torch.amp.GradScaler(device.type, init_scale=2.0 ** 16)
    batches = [(torch.randn(8, 3, 8, 8), torch.randint(0, 3, (8,))) for _ in range(4)]
    w0 = model.head.weight.detach().clone()
    losses = train(model, batches, optimizer, scaler, device)
    jump = (model.head.weight.detach() - w0).abs().max().item()
    print(f"losses {[round(l, 2) for l in losses]}, max head weight change {jump:.2f}")
    return jump, losses


if __name__ == "__main__":
    jump, losses = main()
    if jump > 1.0:
        print(f"BUGGY: weights moved by {jump:.1f} with lr=1e-3 - optimizer stepped on scaled gradients")
    else:
        raise SystemExit("NO BUG")
