"""GG109 look-alike - requires_grad switched on for a detached leaf on purpose.

Category: GG109 (look-alike, correct code).
PGD adversarial training: the perturbed batch is rebuilt from detached
values every step and `requires_grad = True` is set on it so the attack
loss can be differentiated w.r.t. the input.  This is a leaf the attack
really needs, not a patch on a history-less loss; the training loss that
updates the model is an ordinary graph through the model.
Modelled on: none found (Madry et al. PGD training idiom)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 3))

    def forward(self, x):
        return self.body(x)


def pgd_attack(model, x, y, eps=0.1, alpha=0.03, steps=3):
    was_training = model.training
    model.eval()
    x_adv = (x + torch.empty_like(x).uniform_(-eps, eps)).clamp(0, 1).detach()
    for _ in range(steps):
        x_adv.requires_grad = True
        attack_loss = F.cross_entropy(model(x_adv), y)
        grad, = torch.autograd.grad(attack_loss, x_adv)
        x_adv = x_adv.detach() + alpha * grad.sign()
        x_adv = torch.min(torch.max(x_adv, x - eps), x + eps).clamp(0, 1).detach()
    model.train(was_training)
    return x_adv


def train_epoch(model, loader, optimizer):
    model.train()
    for x, y in loader:
        x_adv = pgd_attack(model, x, y)
        loss = F.cross_entropy(model(x_adv), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = Net()
    w0 = model.body[1].weight.detach().clone()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = TensorDataset(torch.rand(32, 1, 8, 8), torch.randint(0, 3, (32,)))
    for epoch in range(2):
        print(f"epoch {epoch}: adv loss {train_epoch(model, DataLoader(data, batch_size=8), optimizer):.4f}")
    assert not torch.equal(w0, model.body[1].weight)


if __name__ == "__main__":
    main()
    print("OK")
