"""GG407 - .grad used before any backward ran (it is None).

FIXED version. Original mistake: a SmoothGrad explainer averages input gradients over noisy copies of
the image.  To "reset the gradient" between samples it calls
``x.grad.data.zero_()`` at the top of each iteration, before the first
``backward()`` has ever populated ``x.grad``.  A fresh leaf starts with
``.grad = None``, so the very first reset fails.

torch/Python raised (buggy version): AttributeError: 'NoneType' object has no
attribute 'data'
Fix: only reset a gradient that exists (each noisy copy is a new leaf anyway).

Modelled on: https://github.com/pkmr06/pytorch-smoothgrad/issues/5
"""
import torch
import torch.nn as nn

OPTS = {"n_samples": 8, "noise_level": 0.15, "magnitude": True, "num_classes": 5, "device": "cpu"}


class MiniVGG(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


class VanillaGrad:
    def __init__(self, model, device):
        self.model = model.to(device).eval()
        self.device = device

    def one_hot(self, output, index):
        oh = torch.zeros_like(output)
        oh[0, index] = 1.0
        return oh


class SmoothGrad(VanillaGrad):
    def __init__(self, model, device, n_samples, noise_level, magnitude):
        super().__init__(model, device)
        self.n_samples = n_samples
        self.noise_level = noise_level
        self.magnitude = magnitude

    def __call__(self, image, index=None):
        stdev = self.noise_level * (image.max() - image.min())
        total = torch.zeros_like(image)
        for _ in range(self.n_samples):
            noisy = image + stdev * torch.randn_like(image)
            x = noisy.clone().to(self.device).requires_grad_(True)
            if x.grad is not None:
                x.grad.zero_()  # fixed: GG407
            output = self.model(x)
            if index is None:
                index = int(output.argmax())
            (output * self.one_hot(output, index)).sum().backward()
            g = x.grad.detach()
            total += g * g if self.magnitude else g
        return total / self.n_samples


def main():
    torch.manual_seed(0)
    model = MiniVGG(OPTS["num_classes"])
    explainer = SmoothGrad(model, OPTS["device"], OPTS["n_samples"], OPTS["noise_level"], OPTS["magnitude"])
    image = torch.rand(1, 3, 16, 16)
    sal = explainer(image)
    print(f"smoothgrad map: shape={tuple(sal.shape)} mean={sal.mean().item():.3e}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
