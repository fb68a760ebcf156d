"""GG106 look-alike - torch.inference_mode() for prediction and a cloned feature cache.

Correct code. Features of a frozen encoder are computed under torch.inference_mode()
and then `.clone()`d outside of it, which yields ordinary tensors the trainable probe
may save for backward. The final prediction also runs under inference_mode, but its
outputs are only read (argmax, .tolist()), never used in a graph.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, in_dim=20, feat_dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, feat_dim))

    def forward(self, x):
        return self.net(x)


def extract_features(encoder, data):
    encoder.eval()
    with torch.inference_mode():
        feats = encoder(data)
        feats = F.normalize(feats, dim=-1)
    return feats.clone()


class ProbeTrainer:
    def __init__(self, encoder, probe, lr=0.5):
        self.encoder, self.probe = encoder, probe
        self.optimizer = torch.optim.SGD(probe.parameters(), lr=lr, momentum=0.9)

    def fit(self, data, labels, epochs=3, batch_size=8):
        self.features = extract_features(self.encoder, data)
        for epoch in range(epochs):
            for start in range(0, len(labels), batch_size):
                feats = self.features[start:start + batch_size]
                loss = F.cross_entropy(self.probe(feats), labels[start:start + batch_size])
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            print(f"epoch {epoch}: loss={loss.item():.4f}")

    def predict(self, data):
        with torch.inference_mode():
            logits = self.probe(F.normalize(self.encoder(data), dim=-1))
            return logits.argmax(-1).tolist()


def main():
    torch.manual_seed(0)
    encoder = Encoder().requires_grad_(False)
    probe = nn.Linear(16, 3)
    data, labels = torch.randn(24, 20), torch.randint(0, 3, (24,))
    trainer = ProbeTrainer(encoder, probe)
    before = probe.weight.detach().clone()
    trainer.fit(data, labels)
    assert not trainer.features.is_inference()
    assert not torch.equal(before, probe.weight)
    print(f"predictions: {trainer.predict(data[:5])}")


if __name__ == "__main__":
    main()
    print("OK")
