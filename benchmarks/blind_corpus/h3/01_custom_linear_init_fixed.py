"""GG301 - fixed version.

The in-place initialisation of the parameters now runs inside
torch.no_grad(), so the fills are not recorded by autograd and training runs.
"""
import math
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ScaledLinear(nn.Module):
    def __init__(self, in_features, out_features, gain=1.0):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features))
        self.gain = gain
        self.reset_parameters()

    def reset_parameters(self):
        std = self.gain / math.sqrt(self.weight.shape[1])
        with torch.no_grad():
            self.weight.normal_(0.0, std)  # fixed: GG301
            self.bias.zero_()

    def forward(self, x):
        return x @ self.weight.t() + self.bias


class MLP(nn.Module):
    def __init__(self, d_in=8, d_hidden=16, n_classes=3):
        super().__init__()
        self.fc1 = ScaledLinear(d_in, d_hidden, gain=math.sqrt(2.0))
        self.act = nn.ReLU()
        self.fc2 = ScaledLinear(d_hidden, n_classes)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def train(model, loader, optimizer, criterion, epochs=2):
    model.train()
    for epoch in range(epochs):
        running = 0.0
        for step, (xb, yb) in enumerate(loader):
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            running += loss.item()
        print(f"epoch {epoch}: loss={running / (step + 1):.4f}")


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    x = torch.randn(64, 8)
    y = torch.randint(0, 3, (64,))
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    model = MLP().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    train(model, loader, optimizer, nn.CrossEntropyLoss())


if __name__ == "__main__":
    main()
    print("FIXED: ok")
