"""Linear probe on a pretrained feature extractor -- but the probe was frozen as well."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)

NUM_FEATURES = 32
NUM_CLASSES = 5


class ProbeNet(nn.Module):
    """A small feature extractor with a linear classification head."""

    def __init__(self, in_dim, hidden, classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(in_dim, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
        )
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.features(x))


def main():
    model = ProbeNet(NUM_FEATURES, 64, NUM_CLASSES)
    # "freeze the pretrained weights" -- this freezes the head too
    for param in model.parameters():  # expect: GG104
        param.requires_grad = False
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    for epoch in range(3):
        x = torch.randn(16, NUM_FEATURES)
        y = torch.randint(0, NUM_CLASSES, (16,))
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
