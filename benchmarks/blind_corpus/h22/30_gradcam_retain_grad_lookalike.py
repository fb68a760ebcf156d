"""Category GG403 look-alike - .grad of a non-leaf activation, read after retain_grad().

A Grad-CAM helper reads the gradient of an intermediate feature map (a non-leaf
tensor). The model's forward stores that feature map on self and calls
retain_grad() on it when CAM mode is enabled, so after backward() its .grad is
populated and the CAM can be built. Expected: runs cleanly, no None gradient.

Modelled on: none found
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class CamNet(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.fc = nn.Linear(16, num_classes)
        self.keep_activations = False
        self.activations = None

    def forward(self, x):
        feats = self.block2(F.max_pool2d(self.block1(x), 2))
        if self.keep_activations:
            feats.retain_grad()
            self.activations = feats
        return self.fc(F.adaptive_avg_pool2d(feats, 1).flatten(1))


class GradCAM:
    def __init__(self, model):
        self.model = model

    def __call__(self, image, class_idx=None):
        self.model.eval()
        self.model.keep_activations = True
        self.model.zero_grad()
        logits = self.model(image)
        if class_idx is None:
            class_idx = logits.argmax(dim=1)
        logits.gather(1, class_idx[:, None]).sum().backward()
        acts = self.model.activations
        weights = acts.grad.mean(dim=(2, 3), keepdim=True)
        cam = F.relu((weights * acts).sum(dim=1)).detach()
        self.model.keep_activations = False
        return cam / (cam.amax(dim=(1, 2), keepdim=True) + 1e-8)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = CamNet()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(2):
        x, y = torch.randn(4, 3, 16, 16), torch.randint(0, 4, (4,))
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    cam = GradCAM(model)(torch.randn(2, 3, 16, 16))
    assert cam.shape == (2, 8, 8)
    print("OK")
