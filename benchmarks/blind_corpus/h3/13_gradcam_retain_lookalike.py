"""GG403 look-alike (correct code).

A Grad-CAM style helper reads .grad of the last conv feature map, which is
an intermediate tensor, but calls retain_grad() on it first, so .grad is
filled.  A second helper builds an input grid with .view() *before*
requires_grad_(), so the grid is a leaf and its .grad is populated too.
Parameter .grad reads after backward are ordinary leaf reads.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.fc = nn.Linear(8, n_classes)

    def forward(self, x, keep_features=False):
        fmap = self.features(x)
        if keep_features:
            fmap.retain_grad()
            self.last_fmap = fmap
        return self.fc(fmap.mean(dim=(2, 3)))


def grad_cam(model, img, cls):
    model.zero_grad()
    logits = model(img, keep_features=True)
    logits[:, cls].sum().backward()
    fmap = model.last_fmap
    weights = fmap.grad.mean(dim=(2, 3), keepdim=True)
    cam = F.relu((weights * fmap.detach()).sum(1))
    return cam / (cam.amax(dim=(1, 2), keepdim=True) + 1e-8)


def input_gradient(model, n=5):
    grid = torch.linspace(-1, 1, n * 3 * 4 * 4).view(n, 3, 4, 4).requires_grad_()
    model(grid).logsumexp(1).sum().backward()
    return grid.grad.abs().mean().item()


def main():
    torch.manual_seed(0)
    model = ConvNet()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(12, 3, 8, 8), torch.randint(0, 3, (12,))
    for step in range(3):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        gnorm = model.fc.weight.grad.norm().item()
        opt.step()
        print(f"step {step}: loss {loss.item():.3f} fc grad {gnorm:.3f}")
    cam = grad_cam(model, x[:2], cls=1)
    print("cam shape", tuple(cam.shape), "input grad", round(input_gradient(model), 5))


if __name__ == "__main__":
    main()
    print("OK")
