"""GG609 - optimizer.step() on gradients a GradScaler still scales (fixed).

The helper calls scaler.step(optimizer), which unscales the gradients (and skips the step
on inf/NaN) before stepping, followed by scaler.update().
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
    scaler.step(optimizer)  # fixed: GG609
    scaler.update()
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
    assert jump < 0.05 and all(l < 5.0 for l in losses), (jump, losses)
    print("FIXED: ok")
