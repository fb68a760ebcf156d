"""GG106 - linear probe trained on features cached under torch.inference_mode().

The frozen encoder's features are computed once in `_encode_all` inside
torch.inference_mode() and stored on the trainer. Those are inference tensors; when the
trainable probe multiplies them by its weight, autograd needs to save them and fails with:
RuntimeError: Inference tensors cannot be saved for backward. ...
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Encoder(nn.Module):
    def __init__(self, in_dim=20, feat_dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.Tanh(), nn.Linear(32, feat_dim))

    def forward(self, x):
        return self.net(x)


class LinearProbeTrainer:
    def __init__(self, encoder, n_classes, data, labels, device="cpu"):
        self.device = device
        self.encoder = encoder.to(device).eval()
        self.labels = labels.to(device)
        self.features = self._encode_all(data)
        feat_dim = self.features.shape[1]
        self.probe = nn.Linear(feat_dim, n_classes).to(device)
        self.optimizer = torch.optim.SGD(self.probe.parameters(), lr=0.1, weight_decay=1e-4)
        self.criterion = nn.CrossEntropyLoss()

    def _encode_all(self, data, batch_size=16):
        chunks = []
        with torch.inference_mode():
            for (x,) in DataLoader(TensorDataset(data), batch_size=batch_size):
                chunks.append(self.encoder(x.to(self.device)))
            features = torch.cat(chunks)
            features = (features - features.mean(0)) / (features.std(0) + 1e-6)
        return features

    def train_step(self, feats, labels):
        logits = self.probe(feats)  # bug: GG106
        loss = self.criterion(logits, labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item(), (logits.argmax(1) == labels).float().mean().item()

    def train_epoch(self, batch_size=8):
        stats = []
        for start in range(0, len(self.labels), batch_size):
            end = start + batch_size
            stats.append(self.train_step(self.features[start:end], self.labels[start:end]))
        return sum(s[0] for s in stats) / len(stats), sum(s[1] for s in stats) / len(stats)


def main():
    torch.manual_seed(0)
    encoder = Encoder()
    for p in encoder.parameters():
        p.requires_grad_(False)
    data, labels = torch.randn(32, 20), torch.randint(0, 4, (32,))
    trainer = LinearProbeTrainer(encoder, 4, data, labels)
    for epoch in range(3):
        loss, acc = trainer.train_epoch()
        print(f"epoch {epoch}: loss={loss:.4f} acc={acc:.3f}")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
