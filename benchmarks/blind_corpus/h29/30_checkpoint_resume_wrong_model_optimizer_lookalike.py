"""Save/load a general checkpoint and resume a wrapper model that contains ``net``.

Look-alike: the resumed optimizer is again built from ``net.parameters()``, but here the
resumed model is a wrapper (normalisation + ``net``) and the checkpoint is loaded into
``net`` itself, so the loss does reach every parameter the optimizer steps.

Modelled on: https://github.com/pytorch/tutorials/issues/1430

The "Saving and loading a general checkpoint" recipe trains ``net``, saves a checkpoint,
then rebuilds ``model = Net()`` and creates ``optimizer = optim.SGD(net.parameters(), ...)``
before loading both state dicts. Resuming training runs ``model`` forward and backward,
but the optimizer steps the tensors of the old ``net``, which the resumed loss never
reaches: ``model`` keeps the checkpoint weights forever. The check shows ``model``'s
parameters are unchanged after the resumed epochs.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 3)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(6 * 3 * 3, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def make_batches(n=4, bs=8):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(bs, 3, 8, 8, generator=g), torch.randint(0, 4, (bs,), generator=g)) for _ in range(n)]


def run_epoch(model, optimizer, criterion, batches):
    model.train()
    total = 0.0
    for inputs, labels in batches:
        optimizer.zero_grad()
        loss = criterion(model(inputs), labels)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(batches)


def save_checkpoint(path, epoch, net, optimizer, loss):
    torch.save({"epoch": epoch, "model_state_dict": net.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(), "loss": loss}, path)


def first_training_run(path, batches, criterion):
    net = Net()
    optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss = run_epoch(net, optimizer, criterion, batches)
    save_checkpoint(path, 1, net, optimizer, loss)
    return net


class Normalized(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        x = (x - x.mean(dim=(2, 3), keepdim=True)) / (x.std(dim=(2, 3), keepdim=True) + 1e-5)
        return self.net(x)


def resume(path, net, batches, criterion, extra_epochs=2):
    net = Net()
    model = Normalized(net)
    optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    checkpoint = torch.load(path)
    net.load_state_dict(checkpoint["model_state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    start = checkpoint["epoch"]
    loaded = [p.detach().clone() for p in model.parameters()]
    for epoch in range(start, start + extra_epochs):
        run_epoch(model, optimizer, criterion, batches)
    return model, loaded


if __name__ == "__main__":
    torch.manual_seed(0)
    batches = make_batches()
    criterion = nn.CrossEntropyLoss()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pt")
        net = first_training_run(path, batches, criterion)
        model, loaded = resume(path, net, batches, criterion)
    unchanged = all(torch.equal(a, b) for a, b in zip(loaded, model.parameters()))
    assert not unchanged
    print("OK")
