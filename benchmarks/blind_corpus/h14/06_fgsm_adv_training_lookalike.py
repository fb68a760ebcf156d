"""GG503 look-alike - autograd.grad result reused without create_graph, correctly.

FGSM adversarial training: the gradient of the loss w.r.t. the input is taken
with torch.autograd.grad (no create_graph) and only its sign is used to build
a perturbed input.  The training loss is then computed from a fresh forward
pass on the perturbed input, so nothing ever differentiates through the
gradient itself.  No create_graph is needed; runs cleanly.

Modelled on: none found (correct counterpart of the path-length regulariser bug)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = {"eps": 0.1, "adv_weight": 0.5, "lr": 1e-2, "epochs": 2, "batch_size": 16}


class SmallCNN(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(8, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def fgsm_example(model, x, y, eps):
    x = x.clone().requires_grad_(True)
    loss = F.cross_entropy(model(x), y)
    grad_x, = torch.autograd.grad(loss, x)
    x_adv = (x + eps * grad_x.sign()).clamp(0, 1)
    return x_adv.detach()


def train_epoch(model, loader, optimizer, hp):
    model.train()
    logs = {"clean": 0.0, "adv": 0.0}
    for i, (x, y) in enumerate(loader):
        x_adv = fgsm_example(model, x, y, hp["eps"])
        clean_loss = F.cross_entropy(model(x), y)
        adv_loss = F.cross_entropy(model(x_adv), y)
        loss = (1 - hp["adv_weight"]) * clean_loss + hp["adv_weight"] * adv_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        logs["clean"] += clean_loss.item()
        logs["adv"] += adv_loss.item()
    return {k: v / (i + 1) for k, v in logs.items()}


def main():
    torch.manual_seed(0)
    x = torch.rand(48, 1, 8, 8)
    y = torch.randint(0, 5, (48,))
    loader = DataLoader(TensorDataset(x, y), batch_size=HPARAMS["batch_size"], shuffle=True)
    model = SmallCNN()
    optimizer = torch.optim.SGD(model.parameters(), lr=HPARAMS["lr"], momentum=0.9)
    w0 = model.classifier.weight.detach().clone()
    for epoch in range(HPARAMS["epochs"]):
        logs = train_epoch(model, loader, optimizer, HPARAMS)
        print(f"epoch {epoch}: clean={logs['clean']:.3f} adv={logs['adv']:.3f}")
    assert not torch.equal(w0, model.classifier.weight)


if __name__ == "__main__":
    main()
    print("OK")
