"""GG403 look-alike: .grad read after backward(), but only on leaf tensors; feature-map
gradients are captured with a tensor hook instead of .grad.

Vanilla saliency reads `image.grad` where `image` is a leaf created with
requires_grad_(); the Grad-CAM part stores the gradient of the last conv output through
`output.register_hook(...)`; parameter gradients (leaves) are logged as norms. No
non-leaf .grad is read. Correct code.

Modelled on: https://github.com/pytorch/pytorch/issues/2384 (intermediate gradient
inspection, done with leaves and hooks)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class CNN(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        return F.relu(self.conv2(x))

    def classify(self, fmap):
        return self.fc(F.adaptive_avg_pool2d(fmap, 1).flatten(1))


class Explainer:
    def __init__(self, model):
        self.model = model
        self.fmap_grad = None

    def _save_grad(self, grad):
        self.fmap_grad = grad

    def explain(self, image, target):
        self.model.eval()
        self.model.zero_grad()
        image = image.clone().detach().requires_grad_(True)
        fmap = self.model(image)
        fmap.register_hook(self._save_grad)
        score = self.model.classify(fmap)[0, target]
        score.backward()
        saliency = image.grad.abs().max(dim=1)[0]
        weights = self.fmap_grad.mean(dim=(2, 3), keepdim=True)
        cam = F.relu((weights * fmap.detach()).sum(1))
        grad_norms = {n: p.grad.norm().item() for n, p in self.model.named_parameters()}
        return saliency, cam, grad_norms


def main():
    torch.manual_seed(0)
    explainer = Explainer(CNN())
    saliency, cam, norms = explainer.explain(torch.rand(1, 3, 12, 12), target=2)
    print(f"saliency {tuple(saliency.shape)}, cam {tuple(cam.shape)}, "
          f"conv1 grad norm {norms['conv1.weight']:.4f}")
    assert saliency.shape == (1, 12, 12) and cam.shape == (1, 12, 12)


if __name__ == "__main__":
    main()
    print("OK")
