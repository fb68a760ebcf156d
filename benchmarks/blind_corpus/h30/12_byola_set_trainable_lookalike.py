"""Look-alike: frozen BYOL-A style encoder with a trainable linear probe.

Modelled on: https://github.com/nttcslab/byol-a/issues/7 (counterpart)

Same network mixin as the report, including ``set_trainable``.  The encoder is
frozen with ``set_trainable(False)`` and never unfrozen, but the loss is
computed through a separate ``nn.Linear`` probe whose parameters require grad,
so ``backward()`` has a graph and the probe trains.  Correct code.
"""
import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F


class NetworkCommonMixIn:
    def load_weight(self, state_dict):
        self.load_state_dict(state_dict)
        self.eval()
        return self

    def set_trainable(self, trainable=False):
        for p in self.parameters():
            if p.requires_grad:
                p.requires_grad = trainable


class AudioNTT(nn.Module, NetworkCommonMixIn):
    def __init__(self, n_mels=16, d=32):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.fc = nn.Sequential(nn.Linear(8 * (n_mels // 4), d), nn.ReLU(), nn.Linear(d, d))
        self.d = d

    def forward(self, x):
        x = self.features(x)                 # (B, C, mel, T)
        x = x.permute(0, 3, 2, 1)            # (B, T, mel, C)
        B, T, D, C = x.shape
        x = self.fc(x.reshape(B, T, D * C))  # (B, T, d)
        return x.max(dim=1).values + x.mean(dim=1)


@torch.no_grad()
def extract_embeddings(model, batches):
    model.eval()
    return torch.cat([model(x) for x in batches])


def train_probe(encoder, probe, batches, labels, lr, steps):
    encoder.eval()
    opt = torch.optim.Adam(probe.parameters(), lr=lr)
    before = probe.weight.detach().clone()
    for step in range(steps):
        x, y = batches[step % len(batches)], labels[step % len(labels)]
        logits = probe(encoder(x))
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return not torch.equal(before, probe.weight)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--steps", type=int, default=4)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    batches = [torch.randn(4, 1, 16, 24, generator=g) for _ in range(3)]

    pretrained = AudioNTT().state_dict()
    model = AudioNTT().load_weight(pretrained)
    model.set_trainable(False)                 # linear-probe phase: frozen encoder
    emb = extract_embeddings(model, batches)
    assert emb.shape == (12, model.d)

    labels = [torch.randint(0, 5, (4,), generator=g) for _ in batches]
    probe = nn.Linear(model.d, 5)
    return train_probe(model, probe, batches, labels, args.lr, args.steps)


if __name__ == "__main__":
    assert main([])
    print("OK")
