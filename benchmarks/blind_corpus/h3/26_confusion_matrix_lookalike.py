"""GG502 look-alike (correct code).

NumPy conversions that look risky but are fine: predicted class indices
from argmax (integer outputs never require grad) are converted outside
no_grad during training; features for a t-SNE-style dump are detached
first; probabilities in the validation pass are computed under
torch.no_grad(); the loss is logged with .item().
"""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())
        self.classifier = nn.Linear(16, n_classes)

    def forward(self, x):
        f = self.features(x)
        return self.classifier(f), f


def confusion(preds, labels, k=3):
    cm = np.zeros((k, k), dtype=np.int64)
    np.add.at(cm, (labels, preds), 1)
    return cm


def main():
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, y = torch.randn(60, 8), torch.randint(0, 3, (60,))
    out_dir = tempfile.mkdtemp()
    for epoch in range(3):
        logits, feats = model(x)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        preds = logits.argmax(dim=1).numpy()
        cm = confusion(preds, y.numpy())
        np.save(os.path.join(out_dir, f"feats_{epoch}.npy"), feats.detach().cpu().numpy())
        print(f"epoch {epoch}: loss={loss.item():.4f} acc={np.trace(cm) / cm.sum():.3f}")
    model.eval()
    with torch.no_grad():
        probs = F.softmax(model(x)[0], dim=1).numpy()
    assert np.allclose(probs.sum(1), 1.0, atol=1e-5)


if __name__ == "__main__":
    main()
    print("OK")
