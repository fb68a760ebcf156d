"""GG605: zero_grad() placed between backward() and step() wipes every gradient.

Category GG605. In ``train`` the author put ``optimizer.zero_grad()`` right before
``optimizer.step()`` ("clear, then update"). By then backward() has already filled the
gradients, and zero_grad() (set_to_none=True by default) throws them away, so the
optimizer finds no gradient and leaves every parameter as it was.
Silent effect: no error; the loss is computed and back-propagated every step, yet the
weights never change (asserted against a copy taken before training).
"""
import copy
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def tqdm_like(iterable, total, desc=""):
    for i, item in enumerate(iterable, 1):
        yield item
        if i == total:
            print(f"{desc} {i}/{total} done")


class DigitMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 48)
        self.fc2 = nn.Linear(48, 10)
        self.drop = nn.Dropout(0.2)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x.flatten(1)))))


def train(model, loader, optimizer, criterion, epochs, ckpt_dir):
    for epoch in range(epochs):
        model.train()
        correct = 0
        for images, labels in tqdm_like(loader, len(loader), desc=f"epoch {epoch}"):
            logits = model(images)
            loss = criterion(logits, labels)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)
            optimizer.zero_grad()  # bug: GG605
            optimizer.step()
            correct += (logits.argmax(1) == labels).sum().item()
        print(f"epoch {epoch}: train acc {correct / len(loader.dataset):.2%}")
        torch.save(model.state_dict(), os.path.join(ckpt_dir, f"mlp_{epoch}.pt"))


def main():
    torch.manual_seed(17)
    images = torch.rand(120, 8, 8)
    labels = torch.randint(0, 10, (120,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=20, shuffle=True)
    model = DigitMLP()
    before = copy.deepcopy(model.state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    with tempfile.TemporaryDirectory() as ckpt_dir:
        train(model, loader, optimizer, nn.CrossEntropyLoss(), epochs=2, ckpt_dir=ckpt_dir)
    after = model.state_dict()
    return [name for name in before if not torch.equal(before[name], after[name])]


if __name__ == "__main__":
    changed = main()
    if not changed:
        print("BUGGY: no parameter changed after 2 epochs of training")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
