"""GG503 look-alike - autograd.grad result used to build the next input, no create_graph.

The adversarial trainer takes the gradient of the loss w.r.t. the input with
torch.autograd.grad (create_graph left False) and uses only its sign to
perturb the batch.  The perturbed batch is deliberately treated as data (a
constant): nobody differentiates through the gradient, so no double-backward
graph is needed and the model still receives ordinary gradients from the
adversarial loss.

Modelled on: none found (standard FGSM adversarial training loop)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = dict(epsilon=0.1, adv_weight=0.5, lr=0.05, epochs=2, batch_size=16)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3)
        self.conv2 = nn.Conv2d(8, 16, 3)
        self.fc = nn.Linear(16 * 2 * 2, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


class AdversarialTrainer:
    def __init__(self, model, hp):
        self.model = model
        self.hp = hp
        self.opt = torch.optim.SGD(model.parameters(), lr=hp["lr"], momentum=0.9)
        self.history = {"clean": [], "adv": []}

    def fgsm(self, x, y):
        x = x.clone().requires_grad_(True)
        loss = F.cross_entropy(self.model(x), y)
        (grad_x,) = torch.autograd.grad(loss, x)
        x_adv = x + self.hp["epsilon"] * grad_x.sign()
        return x_adv.clamp(0.0, 1.0).detach()

    def train_step(self, x, y):
        self.model.train()
        x_adv = self.fgsm(x, y)
        self.opt.zero_grad()
        clean_loss = F.cross_entropy(self.model(x), y)
        adv_loss = F.cross_entropy(self.model(x_adv), y)
        loss = (1 - self.hp["adv_weight"]) * clean_loss + self.hp["adv_weight"] * adv_loss
        loss.backward()
        self.opt.step()
        self.history["clean"].append(clean_loss.item())
        self.history["adv"].append(adv_loss.item())
        return loss.item()

    def fit(self, loader):
        for epoch in range(self.hp["epochs"]):
            losses = [self.train_step(x, y) for x, y in loader]
            print(f"epoch {epoch}: loss {sum(losses) / len(losses):.4f}")


def main():
    torch.manual_seed(0)
    x = torch.rand(48, 1, 14, 14)
    y = torch.randint(0, 10, (48,))
    loader = DataLoader(TensorDataset(x, y), batch_size=HPARAMS["batch_size"], shuffle=True)
    model = Net()
    before = [p.detach().clone() for p in model.parameters()]
    trainer = AdversarialTrainer(model, HPARAMS)
    trainer.fit(loader)
    assert all(not torch.equal(b, p) for b, p in zip(before, model.parameters()))


if __name__ == "__main__":
    main()
    print("OK")
