"""GG602 - functional op called in forward() with its result discarded (fixed).

The ReLU result is assigned back (x = F.relu(x)), restoring the non-linearity.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.fc = nn.Linear(16, n_classes)

    def features(self, x):
        x = self.conv1(x)
        x = F.relu(x)  # fixed: GG602
        x = self.conv2(x)
        return x.mean(dim=(2, 3))

    def forward(self, x):
        return self.fc(self.features(x))


def compute_loss(model, batch):
    images, labels = batch
    logits = model(images)
    return F.cross_entropy(logits, labels), (logits.argmax(1) == labels).float().mean()


def train(model, batches, optimizer, epochs=15):
    for epoch in range(epochs):
        for batch in batches:
            loss, acc = compute_loss(model, batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return loss.item(), acc.item()


def is_affine(model, shape=(4, 1, 6, 6)):
    model.eval()
    with torch.no_grad():
        a, b = torch.randn(shape), torch.randn(shape)
        zero = torch.zeros(shape)
        return torch.allclose(model(a + b), model(a) + model(b) - model(zero), atol=1e-4)


def main():
    torch.manual_seed(0)
    images = torch.randn(64, 1, 6, 6)
    labels = (images.abs().mean(dim=(1, 2, 3)) > 0.8).long()  # needs |x|: not linear
    batches = [(images[i:i + 16], labels[i:i + 16]) for i in range(0, 64, 16)]
    model = SmallCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss, acc = train(model, batches, optimizer)
    print(f"final loss {loss:.4f} acc {acc:.2f}")
    return is_affine(model)


if __name__ == "__main__":
    affine = main()
    assert not affine
    print("FIXED: ok")
