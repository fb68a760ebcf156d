"""GG602 look-alike - bare calls in forward() that are correct.

A residual conv block for a speech encoder calls ``self.act(out)`` as a bare
statement.  The activation is ``nn.ReLU(inplace=True)``, so it modifies ``out``
in place and the discarded return value is the same tensor; the block also
calls ``nn.init`` helpers and an activation-statistics tracker purely for their
side effects.  These look like "module called, result discarded", but every
parameter still reaches the loss and trains.  Runs cleanly.

Modelled on: https://github.com/speechbrain/speechbrain/issues/1124 (correct variant)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ActivationStats(nn.Module):
    """Keeps a running mean of activation magnitude (no parameters)."""

    def __init__(self, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean_abs", torch.zeros(()))

    @torch.no_grad()
    def forward(self, x):
        self.mean_abs.mul_(1 - self.momentum).add_(x.abs().mean(), alpha=self.momentum)
        return x


class ResConvBlock(nn.Module):
    def __init__(self, channels, kernel_size=3, dropout=0.1):
        super().__init__()
        self.conv1 = nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2)
        self.norm = nn.BatchNorm1d(channels)
        self.conv2 = nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2)
        self.act = nn.ReLU(inplace=True)
        self.drop = nn.Dropout(dropout)
        self.stats = ActivationStats()
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_normal_(self.conv1.weight, nonlinearity="relu")
        nn.init.zeros_(self.conv2.weight)

    def forward(self, x):
        out = self.norm(self.conv1(x))
        self.act(out)            # in-place ReLU: out itself is rectified
        self.stats(out)          # side-effect only: updates a buffer
        out = self.drop(self.conv2(out))
        return x + out


class Encoder(nn.Module):
    def __init__(self, n_mels=20, channels=16, n_blocks=2, n_classes=4):
        super().__init__()
        self.inp = nn.Conv1d(n_mels, channels, 1)
        self.blocks = nn.Sequential(*[ResConvBlock(channels) for _ in range(n_blocks)])
        self.out = nn.Linear(channels, n_classes)

    def forward(self, feats):
        h = self.blocks(self.inp(feats.transpose(1, 2)))
        return self.out(h.mean(-1))


def main():
    torch.manual_seed(0)
    model = Encoder()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(3):
        feats, labels = torch.randn(8, 30, 20), torch.randint(0, 4, (8,))
        loss = F.cross_entropy(model(feats), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}")
    for name, p in model.named_parameters():
        assert p.grad is not None, name
    assert float(model.blocks[0].stats.mean_abs) > 0


if __name__ == "__main__":
    main()
    print("OK")
