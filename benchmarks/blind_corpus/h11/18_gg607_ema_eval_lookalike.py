"""GG607 look-alike - model.eval() inside the training loop, done right.

Correct code: the step-based loop evaluates every few steps; evaluate() calls
model.eval() and does not restore the mode, but the loop body starts every training
step with model.train(). An EMA copy of the model is put in eval mode once and
stays there, which is fine because it is never trained by backprop. BatchNorm keeps
updating its running stats after every evaluation (checked). Runs cleanly.
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"in_dim": 10, "hidden": 32, "classes": 4, "lr": 0.05, "total_steps": 8, "eval_every": 3, "ema_decay": 0.9}


class Net(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.fc1 = nn.Linear(c["in_dim"], c["hidden"])
        self.bn = nn.BatchNorm1d(c["hidden"])
        self.drop = nn.Dropout(0.2)
        self.fc2 = nn.Linear(c["hidden"], c["classes"])

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.bn(self.fc1(x)))))


@torch.no_grad()
def update_ema(ema, model, decay):
    for pe, pm in zip(ema.parameters(), model.parameters()):
        pe.mul_(decay).add_(pm, alpha=1 - decay)
    for be, bm in zip(ema.buffers(), model.buffers()):
        be.copy_(bm)


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = sum((model(x).argmax(1) == y).sum().item() for x, y in loader)
    return correct / len(loader.dataset)


def infinite(loader):
    while True:
        yield from loader


def main():
    torch.manual_seed(0)
    c = CONFIG
    x, y = torch.randn(80, c["in_dim"]), torch.randint(0, c["classes"], (80,))
    train_loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[:32], y[:32]), batch_size=16)
    model = Net(c)
    ema = copy.deepcopy(model).eval()
    for p in ema.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.SGD(model.parameters(), lr=c["lr"])
    data_iter = infinite(train_loader)
    post_eval_changes = []
    for step in range(1, c["total_steps"] + 1):
        model.train()
        xb, yb = next(data_iter)
        rm_before = model.bn.running_mean.clone()
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        update_ema(ema, model, c["ema_decay"])
        if step > c["eval_every"]:
            post_eval_changes.append(not torch.equal(rm_before, model.bn.running_mean))
        if step % c["eval_every"] == 0:
            print(f"step {step}: loss {loss.item():.4f} val {evaluate(model, val_loader):.3f} ema {evaluate(ema, val_loader):.3f}")
    assert post_eval_changes and all(post_eval_changes)


if __name__ == "__main__":
    main()
    print("OK")
