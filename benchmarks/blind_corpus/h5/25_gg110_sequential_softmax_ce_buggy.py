"""Category GG110 -- softmax output given to cross_entropy.
Status: buggy.
A tabular (penguin-species style) classifier is an nn.Sequential that ends in
nn.Softmax(dim=1), trained with nn.CrossEntropyLoss, which applies log-softmax itself.
The loss therefore works on softmax-of-softmax: gradients are squashed and the loss
can never go below log(1 + (C-1)/e) (0.551 for 3 classes), even once every training
sample is classified correctly.  Silent: no exception, training just plateaus.
Modelled on: https://github.com/MicrosoftDocs/ml-basics/issues/48
"""
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

FEATURES, HIDDEN, CLASSES = 4, 10, 3
EPOCHS, BATCH, LR = 40, 16, 0.01


def make_penguins(n_per_class=30, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.tensor([[-3.0, 0.0, 1.0, -2.0], [3.0, 2.0, -1.0, 0.0], [0.0, -3.0, 2.0, 3.0]])
    x = torch.cat([c + 0.5 * torch.randn(n_per_class, FEATURES, generator=g) for c in centers])
    y = torch.arange(CLASSES).repeat_interleave(n_per_class)
    return x, y


class PenguinNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(FEATURES, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, HIDDEN)
        self.fc3 = nn.Linear(HIDDEN, CLASSES)
        self.net = nn.Sequential(self.fc1, nn.ReLU(), self.fc2, nn.ReLU(), self.fc3, nn.Softmax(dim=1))

    def forward(self, x):
        return self.net(x)


def train(model, data_loader, optimizer, loss_criteria):
    model.train()
    train_loss = 0
    for batch, (data, target) in enumerate(data_loader):
        optimizer.zero_grad()
        out = model(data)
        loss = loss_criteria(out, target)  # bug: GG110
        train_loss += loss.item()
        loss.backward()
        optimizer.step()
    return train_loss / (batch + 1)


def test(model, x, y, loss_criteria):
    model.eval()
    with torch.no_grad():
        out = model(x)
        return loss_criteria(out, y).item(), (out.argmax(1) == y).float().mean().item()


def main():
    torch.manual_seed(0)
    x, y = make_penguins()
    loader = DataLoader(TensorDataset(x, y), batch_size=BATCH, shuffle=True)
    model = PenguinNet()
    loss_criteria = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    for epoch in range(1, EPOCHS + 1):
        loss = train(model, loader, optimizer, loss_criteria)
        if epoch % 10 == 0:
            val_loss, acc = test(model, x, y, loss_criteria)
            print(f"Epoch {epoch}: train loss {loss:.4f} val loss {val_loss:.4f} acc {acc:.3f}")
    return test(model, x, y, loss_criteria)


if __name__ == "__main__":
    final_loss, acc = main()
    floor = math.log(1 + (CLASSES - 1) / math.e)
    if final_loss < floor - 1e-6:
        raise SystemExit("NO BUG")
    print(f"BUGGY: accuracy {acc:.2f} but loss stuck at {final_loss:.3f} >= softmax-CE floor {floor:.3f}")
