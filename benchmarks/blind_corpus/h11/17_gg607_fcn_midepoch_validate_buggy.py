"""GG607 - model.eval() inside the training loop without model.train() before training resumes.

Mistake: the FCN Trainer validates every `interval_validate` iterations, in the middle
of an epoch. validate() switches the model to eval mode and never switches it back;
train_epoch() only calls model.train() once, at the start of the epoch. The rest of
the epoch trains in eval mode: BatchNorm uses and no longer updates its running
statistics, dropout is off. Silent effect: BatchNorm running_mean is frozen during
the training iterations that follow the mid-epoch validation.

Modelled on: https://github.com/wkentaro/pytorch-fcn/pull/56
(validation could happen before the end of an epoch and left the model in eval mode
for the remaining training iterations).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = dict(n_class=3, lr=1e-3, momentum=0.9, max_epoch=1, interval_validate=2, batch_size=4)


class TinyFCN(nn.Module):
    def __init__(self, n_class):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.drop = nn.Dropout2d(0.3)
        self.score = nn.Conv2d(32, n_class, 1)
        self.upscore = nn.ConvTranspose2d(n_class, n_class, 4, stride=2, padding=1)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.max_pool2d(F.relu(self.bn2(self.conv2(h))), 2)
        return self.upscore(self.score(self.drop(h)))


def cross_entropy2d(score, target):
    return F.cross_entropy(score, target)


def label_accuracy(pred, target):
    return (pred == target).float().mean().item()


class Trainer:
    def __init__(self, model, optimizer, train_loader, val_loader, cfg):
        self.model = model
        self.optim = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.interval_validate = cfg["interval_validate"]
        self.iteration = 0
        self.best_acc = 0.0
        self.bn_trace = []

    def validate(self):
        self.model.eval()  # bug: GG607
        accs = []
        with torch.no_grad():
            for data, target in self.val_loader:
                score = self.model(data)
                accs.append(label_accuracy(score.argmax(1), target))
        acc = sum(accs) / len(accs)
        self.best_acc = max(self.best_acc, acc)
        print(f"[validate] iteration {self.iteration} acc={acc:.3f}")

    def train_epoch(self):
        self.model.train()
        for batch_idx, (data, target) in enumerate(self.train_loader):
            if self.iteration % self.interval_validate == 0 and self.iteration > 0:
                self.validate()
            self.optim.zero_grad()
            score = self.model(data)
            loss = cross_entropy2d(score, target)
            loss.backward()
            self.optim.step()
            self.bn_trace.append((self.iteration, self.model.bn1.running_mean.clone()))
            self.iteration += 1

    def train(self, max_epoch):
        for epoch in range(max_epoch):
            self.train_epoch()


def main():
    torch.manual_seed(0)
    imgs = torch.randn(24, 3, 16, 16)
    lbls = torch.randint(0, CFG["n_class"], (24, 16, 16))
    train_loader = DataLoader(TensorDataset(imgs, lbls), batch_size=CFG["batch_size"])
    val_loader = DataLoader(TensorDataset(imgs[:8], lbls[:8]), batch_size=CFG["batch_size"])
    model = TinyFCN(CFG["n_class"])
    optim = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=CFG["momentum"])
    trainer = Trainer(model, optim, train_loader, val_loader, CFG)
    trainer.train(CFG["max_epoch"])
    # running stats after the first validation (iteration 2) until the end of the epoch
    later = [rm for it, rm in trainer.bn_trace if it >= CFG["interval_validate"]]
    return all(torch.equal(later[0], rm) for rm in later[1:])


if __name__ == "__main__":
    if main():
        print("BUGGY: BatchNorm running stats frozen while training after mid-epoch validation (model left in eval mode)")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
