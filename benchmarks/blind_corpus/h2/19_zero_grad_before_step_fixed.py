"""GG605 (fixed): zero_grad() runs before the forward pass, not before step().

Category GG605. ``optimizer.zero_grad()`` moved to the top of the batch loop, so the
gradients produced by backward() survive until ``optimizer.step()`` uses them. In the
buggy version they were cleared just before the step and the weights never changed;
here we assert that every parameter moved.
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
            optimizer.zero_grad()  # fixed: GG605
            logits = model(images)
            loss = criterion(logits, labels)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)
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
    assert len(changed) == 4, changed
    print("FIXED: ok")
