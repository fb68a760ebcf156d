"""GG610 look-alike - parameter generators used many times, but each one only once.

The fine-tuning script freezes the stem, passes a filter() over
model.parameters() to the optimizer (consumed exactly once there), counts
trainable weights with a *new* model.parameters() call, keeps an EMA copy
whose update zips two freshly created generators on every call, and clips
with a list it built once and reuses.  No generator is iterated twice:
the optimizer is non-empty, clipping bounds the norm and the EMA moves (checked).

Modelled on: none found (EMA + partial fine-tuning idioms)
"""
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

HP = {"lr": 0.05, "ema_decay": 0.9, "max_norm": 0.5, "epochs": 2, "batch_size": 8}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.body = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1, stride=2), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.body(self.stem(x)))


class ModelEMA:
    def __init__(self, model, decay):
        self.ema = copy.deepcopy(model).eval()
        self.ema.requires_grad_(False)
        self.decay = decay

    @torch.no_grad()
    def update(self, model):
        for e, p in zip(self.ema.parameters(), model.parameters()):
            e.mul_(self.decay).add_(p.detach(), alpha=1 - self.decay)


def build_optimizer(model):
    for p in model.stem.parameters():
        p.requires_grad_(False)
    trainable = filter(lambda p: p.requires_grad, model.parameters())
    optimizer = torch.optim.SGD(trainable, lr=HP["lr"], momentum=0.9)
    n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"trainable parameters: {n_trainable}")
    return optimizer


def train(model, loader, optimizer, ema):
    clip_params = [p for p in model.parameters() if p.requires_grad]
    post_clip = []
    criterion = nn.CrossEntropyLoss()
    for epoch in range(HP["epochs"]):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            nn.utils.clip_grad_norm_(clip_params, HP["max_norm"])
            post_clip.append(torch.nn.utils.get_total_norm([p.grad for p in clip_params]).item())
            optimizer.step()
            ema.update(model)
        print(f"epoch {epoch}: loss {loss.item():.4f}")
    return post_clip


def main():
    torch.manual_seed(0)
    x, y = torch.randn(24, 3, 8, 8) * 4, torch.randint(0, 4, (24,))
    loader = DataLoader(TensorDataset(x, y), batch_size=HP["batch_size"], shuffle=True)
    model = Net()
    ema = ModelEMA(model, HP["ema_decay"])
    ema_before = ema.ema.head.weight.clone()
    optimizer = build_optimizer(model)
    assert len(optimizer.param_groups[0]["params"]) == 4
    post_clip = train(model, loader, optimizer, ema)
    assert max(post_clip) <= HP["max_norm"] * 1.01
    assert not torch.equal(ema_before, ema.ema.head.weight)


if __name__ == "__main__":
    main()
    print("OK")
