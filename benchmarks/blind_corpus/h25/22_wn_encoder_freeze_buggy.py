"""GG401 - requires_grad flag set on a weight that is computed from other parameters.

An audio classifier with weight-normalised Conv1d layers (as in vocoders and
wav2vec-style feature encoders).  For fine-tuning, `freeze_module()` walks the
encoder and writes `module.weight.requires_grad = not freeze`.  With
`torch.nn.utils.parametrizations.weight_norm`, `module.weight` is not a
Parameter but a tensor recomputed from `original0`/`original1` (both require
grad), i.e. a non-leaf.  Changing its flag raises:
  RuntimeError: you can only change requires_grad flags of leaf variables. If you
  want to use a computed variable in a subgraph that doesn't require
  differentiation use var_no_grad = var.detach().

Modelled on: https://github.com/facebookresearch/fairscale/issues/1126
"""
import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import weight_norm
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"channels": 16, "classes": 4, "samples": 256, "batch": 4, "epochs": 1, "lr": 3e-4,
          "freeze_encoder": True}


class ConvFeatureEncoder(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.convs = nn.ModuleList([
            weight_norm(nn.Conv1d(1, channels, 10, stride=5)),
            weight_norm(nn.Conv1d(channels, channels, 3, stride=2)),
            weight_norm(nn.Conv1d(channels, channels, 3, stride=2)),
        ])
        self.act = nn.GELU()

    def forward(self, wav):
        x = wav.unsqueeze(1)
        for conv in self.convs:
            x = self.act(conv(x))
        return x


class AudioClassifier(nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.encoder = ConvFeatureEncoder(channels)
        self.proj = nn.Linear(channels, channels)
        self.classifier = nn.Linear(channels, classes)

    def forward(self, wav):
        feats = self.encoder(wav).mean(dim=-1)
        return self.classifier(torch.tanh(self.proj(feats)))


def freeze_module(model, freeze=True):
    for module in model.modules():
        if isinstance(module, (nn.Conv1d, nn.Linear)):
            module.weight.requires_grad = not freeze  # bug: GG401
            if module.bias is not None:
                module.bias.requires_grad = not freeze


def count_trainable(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def train(model, loader, optimizer, criterion):
    model.train()
    for step, (wav, label) in enumerate(loader):
        loss = criterion(model(wav), label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss={loss.item():.4f}")


def main():
    torch.manual_seed(0)
    model = AudioClassifier(CONFIG["channels"], CONFIG["classes"])
    if CONFIG["freeze_encoder"]:
        freeze_module(model.encoder, freeze=True)
    print(f"trainable parameters: {count_trainable(model)}")
    loader = DataLoader(TensorDataset(torch.randn(8, CONFIG["samples"]),
                                      torch.randint(0, CONFIG["classes"], (8,))),
                        batch_size=CONFIG["batch"])
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=CONFIG["lr"])
    for _ in range(CONFIG["epochs"]):
        train(model, loader, optimizer, nn.CrossEntropyLoss())
    return model


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        raise SystemExit(0)
    raise SystemExit("NO BUG")
