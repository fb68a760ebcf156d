"""GG101 look-alike - backward() inside a @torch.no_grad() function, re-enabled locally.

Correct code. `explain` is decorated with @torch.no_grad() (the whole report is
inference), but the saliency map is computed inside `with torch.enable_grad():` on an
input that requires grad, so its backward() is valid. Training keeps an EMA copy
updated under no_grad and validates with a @torch.no_grad() helper; the training loss
itself is computed with grad enabled.
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 6, 3, padding=1)
        self.fc = nn.Linear(6 * 8 * 8, 4)

    def forward(self, x):
        return self.fc(F.max_pool2d(F.relu(self.conv(x)), 2).flatten(1))


@torch.no_grad()
def ema_update(ema_model, model, decay=0.9):
    for e, p in zip(ema_model.parameters(), model.parameters()):
        e.mul_(decay).add_(p, alpha=1 - decay)


@torch.no_grad()
def evaluate(model, x, y):
    model.eval()
    loss = F.cross_entropy(model(x), y)
    return loss.item()


@torch.no_grad()
def explain(model, image, target_class):
    model.eval()
    probs = model(image).softmax(-1)
    with torch.enable_grad():
        inp = image.clone().requires_grad_(True)
        score = model(inp)[0, target_class]
        score.backward()
    saliency = inp.grad.abs().amax(dim=1)
    return {"prob": probs[0, target_class].item(), "saliency": saliency}


def train(model, ema_model, optimizer, x, y, steps=3):
    for step in range(steps):
        model.train()
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ema_update(ema_model, model)
        print(f"step {step}: train={loss.item():.4f} val={evaluate(ema_model, x, y):.4f}")


def main():
    torch.manual_seed(0)
    model = Net()
    ema_model = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(8, 1, 16, 16), torch.randint(0, 4, (8,))
    train(model, ema_model, optimizer, x, y)
    report = explain(model, x[:1], target_class=int(y[0]))
    assert report["saliency"].shape == (1, 16, 16) and report["saliency"].sum() > 0
    print(f"p(target)={report['prob']:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
