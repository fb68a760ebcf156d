"""Category GG401 look-alike - requires_grad turned on for tensors that are computed, yet leaves.

A universal adversarial perturbation is optimised against a frozen classifier.
The perturbation starts as `(torch.rand(...) * 2 - 1) * eps` and the normalised
inputs are `(raw - mean) / std`; both are results of arithmetic, but none of
their inputs require grad, so they are leaf tensors and setting requires_grad on
them is legal. The perturbation is then trained with Adam and projected in
place under torch.no_grad(). Expected: runs cleanly.

Modelled on: none found
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

EPS = 8 / 255
MEAN, STD = 0.5, 0.25
STEPS = 5


def build_classifier():
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4),
                          nn.Flatten(), nn.Linear(8 * 16, 5))
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def normalise(raw):
    x = (raw - MEAN) / STD
    x.requires_grad = True
    return x


def input_saliency(model, raw, labels):
    x = normalise(raw)
    F.cross_entropy(model(x), labels).backward()
    return x.grad.abs().amax(dim=1)


def fit_universal_perturbation(model, images, labels):
    delta = (torch.rand(1, *images.shape[1:]) * 2 - 1) * EPS
    delta.requires_grad = True
    opt = torch.optim.Adam([delta], lr=1e-2)
    for step in range(STEPS):
        adv = torch.clamp(images + delta, 0, 1)
        loss = -F.cross_entropy(model((adv - MEAN) / STD), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            delta.clamp_(-EPS, EPS)
        print(f"step {step}: fooling loss {-loss.item():.4f}")
    return delta.detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    clf = build_classifier()
    imgs = torch.rand(6, 3, 16, 16)
    labels = torch.randint(0, 5, (6,))
    sal = input_saliency(clf, imgs, labels)
    assert sal.shape == (6, 16, 16)
    delta = fit_universal_perturbation(clf, imgs, labels)
    assert delta.abs().max() <= EPS + 1e-6
    print("OK")
