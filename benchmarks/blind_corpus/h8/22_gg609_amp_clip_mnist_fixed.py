"""GG609 (fixed) - gradients are unscaled before they are clipped.

Originally `clip_grad_norm_` ran on the loss-scaled gradients, so the clip saw a
norm ~65536x too large and every update ended up ~65536x too small.
Fix: `scaler.unscale_(optimizer)` before `clip_grad_norm_`; `scaler.step` then
steps with the clipped, unscaled gradients.

Modelled on: https://github.com/pytorch/pytorch/issues/40907
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, 1)
        self.conv2 = nn.Conv2d(16, 32, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        return F.log_softmax(self.fc2(x), dim=1)


def train(args, model, device, train_loader, optimizer, epoch, scaler, trace):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            output = model(data)
        loss = F.nll_loss(output.float(), target)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        clip_grad_norm_(model.parameters(), args.clip)  # fixed: GG609
        before = [p.detach().clone() for p in model.parameters()]
        scaler.step(optimizer)
        scaler.update()
        step = torch.sqrt(sum(((p.detach() - b) ** 2).sum() for p, b in zip(model.parameters(), before)))
        trace.append(step.item() / args.lr)
        if batch_idx % args.log_interval == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)}]"
                  f"\tLoss: {loss.item():.6f}")


def test(model, device, test_loader):
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data.to(device))
            test_loss += F.nll_loss(output, target.to(device), reduction="sum").item()
            correct += output.argmax(dim=1).eq(target.to(device)).sum().item()
    n = len(test_loader.dataset)
    print(f"Test set: Average loss: {test_loss / n:.4f}, Accuracy: {correct}/{n}")


def main(argv=None):
    parser = argparse.ArgumentParser(description="PyTorch MNIST Example with AMP")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--clip", type=float, default=12.0)
    parser.add_argument("--log-interval", type=int, default=2)
    args = parser.parse_args(argv)

    device = torch.device("cpu")
    images = torch.randn(64, 1, 12, 12)
    labels = torch.randint(0, 10, (64,))
    train_loader = DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(TensorDataset(images[:32], labels[:32]), batch_size=32)

    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    scaler = torch.amp.GradScaler(device.type)
    trace = []
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch, scaler, trace)
        test(model, device, test_loader)
    return trace


def check_training():
    torch.manual_seed(0)
    trace = main([])
    assert min(trace) > 1e-2, (
        f"updates are tiny: |dW|/lr = {min(trace):.2e} - clip_grad_norm_ measured the *scaled* gradients"
    )


if __name__ == "__main__":
    check_training()
    print("FIXED: ok")
