"""Category GG403 look-alike - .grad of a non-leaf activation, read after retain_grad().

The Grad-CAM helper keeps the last conv block's activation (a non-leaf) on
``self`` and reads its ``.grad`` after backward(). It calls ``retain_grad()``
on that activation during the forward pass, so the gradient is populated.
No error; prints OK.
Modelled on: https://github.com/jacobgil/pytorch-grad-cam/issues/562
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"classes": 4, "size": 20}


class ConvNet(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.block2 = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.fc = nn.Linear(16, classes)
        self.keep_activation = False
        self.activation = None

    def forward(self, x):
        a = self.block2(self.block1(x))
        if self.keep_activation:
            a.retain_grad()
            self.activation = a
        return self.fc(F.adaptive_avg_pool2d(a, 1).flatten(1))


class GradCAM:
    def __init__(self, model):
        self.model = model

    def __call__(self, image, target=None):
        self.model.eval()
        self.model.keep_activation = True
        try:
            logits = self.model(image)
            target = logits.argmax(1).item() if target is None else target
            self.model.zero_grad()
            logits[0, target].backward()
            act = self.model.activation
            weights = act.grad.mean(dim=(2, 3), keepdim=True)
            cam = F.relu((weights * act).sum(1, keepdim=True)).detach()
        finally:
            self.model.keep_activation = False
        cam = F.interpolate(cam, size=image.shape[-2:], mode="bilinear", align_corners=False)[0, 0]
        return (cam - cam.min()) / (cam.max() - cam.min() + 1e-8), target


def main():
    torch.manual_seed(0)
    model = ConvNet(CFG["classes"])
    image = torch.randn(1, 3, CFG["size"], CFG["size"])
    cam, cls = GradCAM(model)(image)
    assert cam.shape == (CFG["size"], CFG["size"]) and not cam.requires_grad
    print(f"class {cls} cam max {cam.max().item():.2f}")


if __name__ == "__main__":
    main()
    print("OK")
