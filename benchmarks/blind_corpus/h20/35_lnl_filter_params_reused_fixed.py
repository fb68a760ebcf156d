"""GG610 (fixed) - the trainable parameters are materialised in a list.

`self.params = [p for p in self.net.parameters() if p.requires_grad]` can be
iterated by the optimizer and again by clip_grad_norm_ on every step.

Modelled on: https://github.com/feidfoe/learning-not-to-learn/issues/3
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

OPTION = {
    "lr": 0.1,
    "momentum": 0.9,
    "weight_decay": 5e-4,
    "max_grad_norm": 0.5,
    "batch_size": 8,
    "n_class": 10,
    "max_step": 3,
}


class FeatureExtractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        return F.adaptive_avg_pool2d(F.relu(self.conv2(x)), 1).flatten(1)


class Net(nn.Module):
    def __init__(self, n_class):
        super().__init__()
        self.extractor = FeatureExtractor()
        self.classifier = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, n_class))

    def forward(self, x):
        return self.classifier(self.extractor(x))


class Trainer:
    def __init__(self, option):
        self.option = option
        self.net = Net(option["n_class"])
        for p in self.net.extractor.conv1.parameters():
            p.requires_grad = False  # keep the first conv frozen (pretrained)
        self.loss = nn.CrossEntropyLoss()
        self.params = [p for p in self.net.parameters() if p.requires_grad]
        self.optim = torch.optim.SGD(self.params, lr=option["lr"], momentum=option["momentum"],
                                     weight_decay=option["weight_decay"])
        self.clip_log = []

    def _grad_norm(self):
        return torch.norm(torch.stack([p.grad.norm() for p in self.net.parameters() if p.grad is not None]))

    def _train_step(self, images, labels):
        self.optim.zero_grad()
        pred = self.net(images)
        loss = self.loss(pred, labels) * 50.0  # large loss weight from the option file
        loss.backward()
        reported = nn.utils.clip_grad_norm_(self.params, self.option["max_grad_norm"])  # fixed: GG610
        self.clip_log.append((reported.item(), self._grad_norm().item()))
        self.optim.step()
        return loss.item()

    def train(self, loader):
        self.net.train()
        for step, (images, labels) in enumerate(loader):
            if step >= self.option["max_step"]:
                break
            loss = self._train_step(images, labels)
            print(f"step {step}: loss {loss:.3f} clip reported {self.clip_log[-1][0]:.3f} "
                  f"grad norm after clip {self.clip_log[-1][1]:.3f}")


def main():
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(32, 3, 16, 16), torch.randint(0, OPTION["n_class"], (32,)))
    trainer = Trainer(OPTION)
    trainer.train(DataLoader(ds, batch_size=OPTION["batch_size"], shuffle=True))
    return trainer.clip_log


if __name__ == "__main__":
    log = main()
    assert all(after <= OPTION["max_grad_norm"] * 1.01 for _, after in log)
    print("FIXED: ok")
