"""GG113 - softmax probabilities passed to NLLLoss.

Mistake: each clothing-attribute classifier returns F.softmax(...) and the
training loop uses nn.NLLLoss, which expects log-probabilities.  NLLLoss then
just returns minus the probability of the true class, so the reported loss is
negative (between -1 and 0) and the gradient is not the cross-entropy one
(silent: negative loss values, weak training signal).

Modelled on: https://github.com/sampathweb/apparel-styles/issues/8
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ATTRIBUTES = {"collar": 3, "pattern": 4, "sleeve_length": 3}
OPTS = {"feat_dim": 64, "epochs": 3, "batch_size": 16, "lr": 1e-3}


class FeatureBackbone(nn.Module):
    """Stand-in for the pretrained conv trunk whose features are fed to the heads."""

    def __init__(self, out_dim):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.proj = nn.Linear(32 * 4, out_dim)

    def forward(self, x):
        return self.proj(self.conv(x).flatten(1))


class AttributeFCN(nn.Module):
    def __init__(self, in_dim, num_labels):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, num_labels))

    def forward(self, x):
        return F.softmax(self.model(x), dim=1)


def train_attribute_model(name, model, features, loader, epochs, lr):
    criterion = nn.NLLLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    history = []
    for epoch in range(epochs):
        model.train()
        running, correct, seen = 0.0, 0, 0
        for images, labels in loader:
            with torch.no_grad():
                feats = features(images)
            outputs = model(feats)
            loss = criterion(outputs, labels)  # bug: GG113
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item() * labels.size(0)
            correct += (outputs.argmax(1) == labels).sum().item()
            seen += labels.size(0)
        history.append(running / seen)
        print(f"[{name}] epoch {epoch}: Loss: {history[-1]:.4f} Acc: {correct / seen:.4f}")
    return history


def main():
    torch.manual_seed(0)
    images = torch.randn(48, 3, 16, 16)
    backbone = FeatureBackbone(OPTS["feat_dim"]).eval()
    out_dir = tempfile.mkdtemp()
    results = {}
    for name, n_labels in ATTRIBUTES.items():
        labels = torch.randint(0, n_labels, (48,))
        loader = DataLoader(TensorDataset(images, labels), batch_size=OPTS["batch_size"], shuffle=True)
        head = AttributeFCN(OPTS["feat_dim"], n_labels)
        results[name] = train_attribute_model(name, head, backbone, loader, OPTS["epochs"], OPTS["lr"])
        torch.save(head.state_dict(), os.path.join(out_dir, f"{name}.pth"))
    return results


if __name__ == "__main__":
    results = main()
    final = {k: v[-1] for k, v in results.items()}
    if all(v < 0 for v in final.values()):
        print(f"BUGGY: NLLLoss on softmax output gives negative losses: {final}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
