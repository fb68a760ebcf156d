"""GG205 look-alike: an optimizer steps between two backward passes of a retained graph, safely.

Category GG205 (look-alike, no bug). A shared encoder feeds a main classifier and a
linear "probe" that has its own optimizer. The probe loss is back-propagated with
retain_graph=True and the probe optimizer steps right away, before the main loss's
backward() through the same forward graph. This is fine: the probe optimizer only updates
the probe's weights, and the main loss's part of the graph (encoder + classifier) never
saved them. The encoder/classifier optimizer steps only after the second backward().
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class EncoderWithHeads(nn.Module):
    def __init__(self, d_in=12, d_feat=24, n_classes=3, n_attrs=2):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, d_feat), nn.ReLU(), nn.Linear(d_feat, d_feat), nn.ReLU())
        self.classifier = nn.Linear(d_feat, n_classes)
        self.probe = nn.Linear(d_feat, n_attrs)

    def forward(self, x):
        feats = self.encoder(x)
        return self.classifier(feats), self.probe(feats)


class ProbeTrainer:
    def __init__(self, model, probe_weight=0.1):
        self.model = model
        self.probe_weight = probe_weight
        main_params = list(model.encoder.parameters()) + list(model.classifier.parameters())
        self.main_opt = torch.optim.SGD(main_params, lr=0.05, momentum=0.9)
        self.probe_opt = torch.optim.Adam(model.probe.parameters(), lr=1e-2)

    def train_step(self, x, y, attr):
        self.main_opt.zero_grad()
        self.probe_opt.zero_grad()
        logits, probe_logits = self.model(x)
        probe_loss = self.probe_weight * F.cross_entropy(probe_logits, attr)
        main_loss = F.cross_entropy(logits, y)
        probe_loss.backward(retain_graph=True)
        self.probe_opt.step()
        main_loss.backward()
        self.main_opt.step()
        return main_loss.item(), probe_loss.item()

    def fit(self, loader, epochs=2):
        for epoch in range(epochs):
            totals = [0.0, 0.0]
            for x, y, attr in loader:
                for k, v in enumerate(self.train_step(x, y, attr)):
                    totals[k] += v
            print(f"epoch {epoch}: main {totals[0] / len(loader):.3f} probe {totals[1] / len(loader):.3f}")


def main():
    torch.manual_seed(13)
    x = torch.randn(72, 12)
    y = torch.randint(0, 3, (72,))
    attr = (x[:, 0] > 0).long()
    loader = DataLoader(TensorDataset(x, y, attr), batch_size=12, shuffle=True)
    ProbeTrainer(EncoderWithHeads()).fit(loader)


if __name__ == "__main__":
    main()
    print("OK")
