"""GG109 look-alike - requires_grad switched on for a tensor without history, on purpose.

FGSM adversarial training: the clean batch is cloned and requires_grad_(True) is
set on it so that backward() of the attack loss fills x_adv.grad. That tensor is
an input, not a loss, and the gradient is actually used to perturb it; the model
is then trained on the perturbed batch with an ordinary loss. Correct code.

Modelled on: none found (textbook FGSM adversarial training)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ARGS = {"eps": 0.1, "lr": 1e-2, "epochs": 2, "batch_size": 16, "mix": 0.5}


class SmallCNN(nn.Module):
    def __init__(self, n_cls=3):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.fc = nn.Linear(6 * 4 * 4, n_cls)

    def forward(self, x):
        return self.fc(self.conv(x).flatten(1))


def fgsm(model, x, y, eps):
    x_adv = x.clone().detach().requires_grad_(True)
    attack_loss = F.cross_entropy(model(x_adv), y)
    attack_loss.backward()
    with torch.no_grad():
        x_adv = (x_adv + eps * x_adv.grad.sign()).clamp(0, 1)
    model.zero_grad(set_to_none=True)
    return x_adv.detach()


def train_epoch(model, loader, optimizer, args):
    model.train()
    for x, y in loader:
        x_adv = fgsm(model, x, y, args["eps"])
        loss = (1 - args["mix"]) * F.cross_entropy(model(x), y) + args["mix"] * F.cross_entropy(model(x_adv), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    x = torch.rand(48, 1, 8, 8)
    y = (x.mean((1, 2, 3)) * 3).long().clamp(max=2)
    loader = DataLoader(TensorDataset(x, y), batch_size=ARGS["batch_size"], shuffle=True)
    model = SmallCNN()
    optimizer = torch.optim.SGD(model.parameters(), lr=ARGS["lr"], momentum=0.9)
    before = model.fc.weight.detach().clone()
    for epoch in range(ARGS["epochs"]):
        print(f"epoch {epoch} adv loss {train_epoch(model, loader, optimizer, ARGS):.4f}")
    assert not torch.equal(before, model.fc.weight)


if __name__ == "__main__":
    main()
    print("OK")
