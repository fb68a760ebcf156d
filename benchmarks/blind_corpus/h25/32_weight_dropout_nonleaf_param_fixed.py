"""GG405 - optimizer handed a non-leaf tensor registered as a module "parameter". (fixed version)

A DropConnect / WeightDropout wrapper (borrowed from an AWD-LSTM style codebase)
keeps a raw copy of the wrapped layer's weight as a real Parameter and writes
the *dropped* weight back into `module._parameters['weight']`.  That dropped
weight is the output of F.dropout on a tensor that requires grad, i.e. a
non-leaf, and `model.parameters()` now yields it.  Building the optimizer fails:
  ValueError: can't optimize a non-leaf Tensor

Fix: remove the original entry from the wrapped layer's `_parameters` and set
the dropped weight as a plain attribute, so `model.parameters()` only yields
leaves (`weight_raw`, biases) and the optimizer trains the raw weight.

Modelled on: https://github.com/pytorch/pytorch/issues/38198
"""
from typing import Collection

import torch
import torch.nn as nn
import torch.nn.functional as F

HPARAMS = {"in_dim": 20, "hidden": 32, "classes": 4, "weight_p": 0.3, "lr": 1e-3,
           "batch": 8, "epochs": 2}


class WeightDropout(nn.Module):
    """Wraps a layer and replaces some of its weights by 0 during training."""

    def __init__(self, module: nn.Module, weight_p: float, layer_names: Collection[str] = ("weight",)):
        super().__init__()
        self.module, self.weight_p, self.layer_names = module, weight_p, layer_names
        for layer in self.layer_names:
            w = getattr(self.module, layer)
            self.register_parameter(f"{layer}_raw", nn.Parameter(w.data))
            del self.module._parameters[layer]  # the wrapped layer keeps no parameter of its own
        self._setweights()

    def _setweights(self):
        for layer in self.layer_names:
            raw_w = getattr(self, f"{layer}_raw")
            setattr(self.module, layer, F.dropout(raw_w, p=self.weight_p, training=self.training))

    def forward(self, *args):
        self._setweights()
        return self.module(*args)


class DropConnectMLP(nn.Module):
    def __init__(self, in_dim, hidden, classes, weight_p):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc2 = WeightDropout(nn.Linear(hidden, hidden), weight_p)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.head(x)


def build_optimizer(model, lr):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if name.endswith("bias") else decay).append(p)
    return torch.optim.AdamW([{"params": decay, "weight_decay": 1e-2},  # fixed: GG405
                              {"params": no_decay, "weight_decay": 0.0}], lr=lr)


def train(model, optimizer, hp):
    x = torch.randn(32, hp["in_dim"])
    y = torch.randint(0, hp["classes"], (32,))
    for epoch in range(hp["epochs"]):
        model.train()
        for i in range(0, 32, hp["batch"]):
            loss = F.cross_entropy(model(x[i:i + hp["batch"]]), y[i:i + hp["batch"]])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: last loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    model = DropConnectMLP(HPARAMS["in_dim"], HPARAMS["hidden"], HPARAMS["classes"], HPARAMS["weight_p"])
    raw_before = model.fc2.weight_raw.detach().clone()
    optimizer = build_optimizer(model, HPARAMS["lr"])
    train(model, optimizer, HPARAMS)
    return model, raw_before


if __name__ == "__main__":
    model, raw_before = main()
    assert all(p.is_leaf for p in model.parameters())
    assert not torch.equal(model.fc2.weight_raw.detach(), raw_before), "raw weight should be trained"
    print("FIXED: ok")
