"""GG104 look-alike - backward() through a fully frozen network.

Correct code. A "perceptual" feature network is frozen completely
(`requires_grad_(False)` on every parameter) and the autoencoder's loss goes through
it. backward() still works because the *input* to the frozen net (the reconstruction)
comes from the trainable autoencoder; the gradient flows through the frozen layers into
the decoder and encoder.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class FeatureNet(nn.Module):
    """Stands in for a pretrained VGG-like network used only as a loss."""

    def __init__(self):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())

    def forward(self, x):
        f1 = self.block1(x)
        return [f1, self.block2(f1)]


class PerceptualLoss(nn.Module):
    def __init__(self, feature_net, weights=(1.0, 0.5)):
        super().__init__()
        self.net = feature_net.eval().requires_grad_(False)
        self.weights = weights

    def forward(self, pred, target):
        loss = F.l1_loss(pred, target)
        for w, fp, ft in zip(self.weights, self.net(pred), self.net(target)):
            loss = loss + w * F.mse_loss(fp, ft)
        return loss


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU())
        self.dec = nn.Sequential(nn.ConvTranspose2d(8, 3, 2, stride=2), nn.Sigmoid())

    def forward(self, x):
        return self.dec(self.enc(x))


def train(model, criterion, optimizer, images, steps=3):
    for step in range(steps):
        recon = model(images)
        loss = criterion(recon, images)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss={loss.item():.4f}")


def main():
    torch.manual_seed(0)
    feature_net = FeatureNet()
    criterion = PerceptualLoss(feature_net)
    assert not any(p.requires_grad for p in feature_net.parameters())
    model = AutoEncoder()
    before = model.enc[0].weight.detach().clone()
    frozen_before = feature_net.block1[0].weight.detach().clone()
    train(model, criterion, torch.optim.Adam(model.parameters(), lr=1e-2), torch.rand(4, 3, 16, 16))
    assert not torch.equal(before, model.enc[0].weight)
    assert torch.equal(frozen_before, feature_net.block1[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
