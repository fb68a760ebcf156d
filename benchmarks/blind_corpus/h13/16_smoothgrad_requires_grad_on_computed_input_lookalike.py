"""Category GG401 look-alike - requires_grad set on a tensor produced by arithmetic, which is still a leaf.

The SmoothGrad helper normalises the image and adds Gaussian noise, then turns
on requires_grad for the result. Those tensors are computed, but only from
plain data tensors that never required grad, so they are leaves and setting
the flag is allowed. No error; prints OK.
Modelled on: https://github.com/utkuozbulak/pytorch-cnn-visualizations/pull/43
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
PARAMS = {"n_samples": 4, "noise_level": 0.15, "size": 16, "classes": 6}


class Classifier(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def preprocess(raw_uint8):
    img = raw_uint8.float().div(255.0).unsqueeze(0)
    return (img - MEAN) / STD


class VanillaGrad:
    def __init__(self, model):
        self.model = model.eval()

    def __call__(self, x, index=None):
        x.requires_grad = True
        out = self.model(x)
        if index is None:
            index = out.argmax(1).item()
        self.model.zero_grad()
        out[0, index].backward()
        return x.grad.detach().clone(), index


class SmoothGrad(VanillaGrad):
    def __init__(self, model, n_samples, noise_level):
        super().__init__(model)
        self.n_samples, self.noise_level = n_samples, noise_level

    def __call__(self, x, index=None):
        sigma = self.noise_level * (x.max() - x.min())
        total = torch.zeros_like(x)
        for _ in range(self.n_samples):
            noisy = x + torch.randn_like(x) * sigma
            grad, index = super().__call__(noisy, index)
            total += grad
        return total / self.n_samples, index


def to_heatmap(grad):
    sal = grad.abs().max(dim=1)[0][0]
    return (sal - sal.min()) / (sal.max() - sal.min() + 1e-8)


def main():
    torch.manual_seed(0)
    model = Classifier(PARAMS["classes"])
    raw = torch.randint(0, 256, (3, PARAMS["size"], PARAMS["size"]), dtype=torch.uint8)
    x = preprocess(raw)
    vanilla, idx = VanillaGrad(model)(x.clone())
    smooth, _ = SmoothGrad(model, PARAMS["n_samples"], PARAMS["noise_level"])(x, idx)
    hm = to_heatmap(smooth)
    assert vanilla.shape == x.shape and hm.shape == (PARAMS["size"], PARAMS["size"])
    print(f"class {idx} heatmap mean {hm.mean().item():.3f}")


if __name__ == "__main__":
    main()
    print("OK")
