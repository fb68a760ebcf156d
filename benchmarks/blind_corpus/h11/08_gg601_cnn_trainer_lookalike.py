"""GG601 look-alike - gradients are cleared, just not with optimizer.zero_grad().

Correct code: the Trainer never calls optimizer.zero_grad(); instead a helper sets
every parameter's .grad to None right after the step (the "set_to_none" idiom written
by hand), and the validation pass clears with model.zero_grad(). Each step uses only
its own batch's gradient (checked with a parameter hook). Runs cleanly.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"channels": 8, "classes": 5, "lr": 0.05, "momentum": 0.9, "epochs": 2, "batch_size": 16}


class SmallCNN(nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, channels, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels * 2, 3, padding=1)
        self.fc = nn.Linear(channels * 2, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.relu(self.conv2(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class Trainer:
    def __init__(self, model, optimizer, scheduler, ckpt_dir):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.ckpt_dir = ckpt_dir
        self.fresh, self.seen = [], []
        model.fc.bias.register_hook(lambda g: self.fresh.append(g.detach().clone()))

    def _clear_grads(self):
        for group in self.optimizer.param_groups:
            for p in group["params"]:
                p.grad = None

    def train_step(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        self.seen.append(self.model.fc.bias.grad.detach().clone())
        self.optimizer.step()
        self._clear_grads()
        return loss.item()

    def train_epoch(self, loader, epoch):
        self.model.train()
        losses = [self.train_step(x, y) for x, y in loader]
        self.scheduler.step()
        torch.save({"epoch": epoch, "model": self.model.state_dict()},
                   os.path.join(self.ckpt_dir, "h11_gg601_lookalike.pt"))
        return sum(losses) / len(losses)

    def validate(self, loader):
        self.model.eval()
        self.model.zero_grad()
        correct = 0
        with torch.no_grad():
            for x, y in loader:
                correct += (self.model(x).argmax(1) == y).sum().item()
        return correct / len(loader.dataset)


def main():
    torch.manual_seed(0)
    x, y = torch.randn(64, 3, 16, 16), torch.randint(0, CFG["classes"], (64,))
    loader = DataLoader(TensorDataset(x, y), batch_size=CFG["batch_size"], shuffle=True)
    model = SmallCNN(CFG["channels"], CFG["classes"])
    opt = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=CFG["momentum"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    trainer = Trainer(model, opt, sched, tempfile.gettempdir())
    for epoch in range(CFG["epochs"]):
        loss = trainer.train_epoch(loader, epoch)
        print(f"epoch {epoch} loss {loss:.4f} val_acc {trainer.validate(loader):.3f}")
    for fresh, seen in zip(trainer.fresh, trainer.seen):
        assert torch.allclose(fresh, seen)


if __name__ == "__main__":
    main()
    print("OK")
