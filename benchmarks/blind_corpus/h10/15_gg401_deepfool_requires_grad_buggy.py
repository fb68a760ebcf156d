"""GG401: requires_grad set on a tensor that is computed from tensors requiring grad.

Mistake: a DeepFool attack loop sets ``image.requires_grad = True`` at the top
of every iteration and then moves the image with ``image = image + step``.  On
the first pass ``image`` is a fresh clone, so the flag can be set; after the
update it is the output of an addition that involves a tensor requiring grad
(a non-leaf), and setting the flag again is refused.
torch raises: RuntimeError: you can only change requires_grad flags of leaf
variables.
Modelled on: https://github.com/Harry24k/adversarial-attacks-pytorch/issues/2
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ATTACK_CFG = {"steps": 5, "overshoot": 0.02, "num_classes": 4, "batch_size": 4}


class Classifier(nn.Module):
    def __init__(self, in_dim=20, hidden=32, num_classes=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, num_classes))

    def forward(self, x):
        return self.net(x)


class DeepFool:
    def __init__(self, model, steps=50, overshoot=0.02):
        self.model = model
        self.steps = steps
        self.overshoot = overshoot

    def _class_gradients(self, image, num_classes):
        logits = self.model(image)[0]
        grads = []
        for k in range(num_classes):
            g, = torch.autograd.grad(logits[k], image, retain_graph=True)
            grads.append(g)
        return logits.detach(), torch.cat(grads)

    def _attack_one(self, image, label, num_classes):
        image = image.clone()
        for step in range(self.steps):
            image.requires_grad = True  # bug: GG401
            logits, grads = self._class_gradients(image, num_classes)
            if logits.argmax() != label:
                break
            others = [k for k in range(num_classes) if k != label]
            w = grads[others] - grads[label]
            f = logits[others] - logits[label]
            dist = f.abs() / w.flatten(1).norm(dim=1)
            l_hat = dist.argmin()
            r = (dist[l_hat] + 1e-4) * w[l_hat] / w[l_hat].norm()
            image = image + (1 + self.overshoot) * r
        return image.detach(), step

    def __call__(self, images, labels, num_classes):
        adv, steps = [], []
        for i in range(images.size(0)):
            x_adv, n = self._attack_one(images[i:i + 1], labels[i], num_classes)
            adv.append(x_adv)
            steps.append(n)
        return torch.cat(adv), steps


def robust_accuracy(model, loader, attack, num_classes):
    model.eval()
    correct = total = 0
    for images, _ in loader:
        with torch.no_grad():
            preds = model(images).argmax(1)
        adv, steps = attack(images, preds, num_classes)
        with torch.no_grad():
            correct += (model(adv).argmax(1) == preds).sum().item()
        total += images.size(0)
        print(f"batch done, mean steps {sum(steps) / len(steps):.1f}")
    return correct / total


def main():
    torch.manual_seed(0)
    cfg = ATTACK_CFG
    model = Classifier(num_classes=cfg["num_classes"])
    loader = DataLoader(TensorDataset(torch.randn(8, 20), torch.zeros(8)), batch_size=cfg["batch_size"])
    attack = DeepFool(model, steps=cfg["steps"], overshoot=cfg["overshoot"])
    acc = robust_accuracy(model, loader, attack, cfg["num_classes"])
    print(f"accuracy under DeepFool: {acc:.2f}")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print("BUGGY:", str(err).splitlines()[0])
    else:
        raise SystemExit("NO BUG")
