"""Category GG104 look-alike -- correct code.
Adversarial robustness evaluation: a trained CNN is frozen with
`model.requires_grad_(False)` and put in eval mode, then FGSM/PGD perturbations are
computed by calling backward() on the loss.  Every parameter is frozen, but the
input image has requires_grad=True, so the loss has a graph and backward() fills
`x_adv.grad`.  Nothing is raised and the attack lowers accuracy.
Modelled on: https://discuss.pytorch.org/t/set-requires-grad-false-for-earlier-layers-in-a-model/187063
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"eps": 0.3, "alpha": 0.1, "steps": 3, "n": 64, "classes": 4}


class SmallCNN(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def quick_train(model, x, y, steps=30):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


def pgd_attack(model, images, labels, eps, alpha, steps):
    x_adv = images.clone().detach()
    for _ in range(steps):
        x_adv.requires_grad_(True)
        loss = F.cross_entropy(model(x_adv), labels)
        loss.backward()
        with torch.no_grad():
            x_adv = x_adv + alpha * x_adv.grad.sign()
            x_adv = torch.min(torch.max(x_adv, images - eps), images + eps).clamp(0, 1)
    return x_adv.detach()


def accuracy(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def main():
    torch.manual_seed(0)
    x = torch.rand(CFG["n"], 1, 12, 12)
    y = (x.mean((1, 2, 3)) * 1000).long() % CFG["classes"]
    model = SmallCNN(CFG["classes"])
    quick_train(model, x, y)
    model.zero_grad(set_to_none=True)
    model.eval()
    model.requires_grad_(False)
    clean = accuracy(model, x, y)
    x_adv = pgd_attack(model, x, y, CFG["eps"], CFG["alpha"], CFG["steps"])
    robust = accuracy(model, x_adv, y)
    print(f"clean acc {clean:.2f} -> adversarial acc {robust:.2f}")
    assert all(p.grad is None for p in model.parameters())
    assert robust <= clean


if __name__ == "__main__":
    main()
    print("OK")
