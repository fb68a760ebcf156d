"""GG602 - a module is called in forward() but its result is thrown away.

A speech front-end is built from ``ConvBlock`` modules (conv layers, optional
residual branch through a 1x1 ``reduce_conv``, normalisation, dropout).  In
``ConvBlock.forward`` the normalisation layer is called as a bare statement,
``self.norm(out)``, without assigning the result, so the block behaves as if
there were no normalisation at all.  Silent effect: the norm layer never
reaches the loss, its affine weight gets no gradient (``.grad is None``) and is
never trained, while its running statistics are still updated.

Modelled on: https://github.com/speechbrain/speechbrain/issues/1124
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HPARAMS = {"n_mels": 20, "channels": [16, 32], "n_classes": 5, "dropout": 0.1, "lr": 1e-3, "steps": 3}


class ConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels, num_layers=2, kernel_size=3,
                 residual=True, dropout=0.1):
        super().__init__()
        layers = []
        for i in range(num_layers):
            layers += [nn.Conv1d(in_channels if i == 0 else out_channels, out_channels,
                                 kernel_size, padding=kernel_size // 2), nn.LeakyReLU()]
        self.convs = nn.Sequential(*layers)
        self.reduce_conv = nn.Conv1d(in_channels, out_channels, 1) if residual else None
        self.norm = nn.BatchNorm1d(out_channels)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        out = self.convs(x)
        if self.reduce_conv is not None:
            out = out + self.reduce_conv(x)
        self.norm(out)  # bug: GG602
        out = self.drop(out)
        return out


class ConvolutionFrontEnd(nn.Module):
    def __init__(self, n_mels, channels, dropout):
        super().__init__()
        blocks, c_in = [], n_mels
        for c in channels:
            blocks.append(ConvBlock(c_in, c, dropout=dropout))
            c_in = c
        self.blocks = nn.ModuleList(blocks)

    def forward(self, feats):
        x = feats.transpose(1, 2)          # (B, T, F) -> (B, F, T)
        for block in self.blocks:
            x = block(x)
        return x.transpose(1, 2)


class KeywordSpotter(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.frontend = ConvolutionFrontEnd(hp["n_mels"], hp["channels"], hp["dropout"])
        self.classifier = nn.Linear(hp["channels"][-1], hp["n_classes"])

    def forward(self, feats):
        return self.classifier(self.frontend(feats).mean(dim=1))


def fit(model, hp):
    opt = torch.optim.Adam(model.parameters(), lr=hp["lr"])
    for step in range(hp["steps"]):
        feats = torch.randn(8, 40, hp["n_mels"])
        labels = torch.randint(0, hp["n_classes"], (8,))
        loss = F.cross_entropy(model(feats), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}")


def untrained_norms(model):
    return [name for name, m in model.named_modules()
            if isinstance(m, nn.BatchNorm1d) and m.weight.grad is None]


if __name__ == "__main__":
    torch.manual_seed(0)
    model = KeywordSpotter(HPARAMS)
    fit(model, HPARAMS)
    missing = untrained_norms(model)
    if missing:
        print(f"BUGGY: norm layers never reach the loss, weight.grad is None for {missing}")
        sys.exit(0)
    raise SystemExit("NO BUG")
