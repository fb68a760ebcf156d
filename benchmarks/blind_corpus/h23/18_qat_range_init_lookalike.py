"""GG604 look-alike - parameters touched after the optimizer exists, correctly.

A fine-tuning script builds a classifier and its optimizer, then resumes from
a checkpoint with ``model.load_state_dict(...)`` (this copies values into the
existing parameters in place, so the optimizer still owns them).  It then
swaps the classification head for a new number of classes, and *rebuilds*
the optimizer immediately afterwards.  It looks like "optimizer created before
the parameters were replaced", but every parameter the model uses is in the
optimizer and is updated.  Runs cleanly.

Modelled on: https://github.com/openvinotoolkit/nncf/pull/327 (correct variant)
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"in_dim": 10, "hidden": 24, "old_classes": 5, "new_classes": 3, "lr": 5e-3, "steps": 4}


class Classifier(nn.Module):
    def __init__(self, in_dim, hidden, n_classes):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def build_optimizer(model, lr):
    return torch.optim.Adam(model.parameters(), lr=lr)


def save_checkpoint(model, path):
    torch.save({"model": model.state_dict()}, path)


def main():
    torch.manual_seed(0)
    ckpt_dir = tempfile.mkdtemp(prefix="ft_")
    path = os.path.join(ckpt_dir, "pretrained.pt")
    save_checkpoint(Classifier(CFG["in_dim"], CFG["hidden"], CFG["old_classes"]), path)

    model = Classifier(CFG["in_dim"], CFG["hidden"], CFG["old_classes"])
    optimizer = build_optimizer(model, CFG["lr"])
    model.load_state_dict(torch.load(path)["model"])      # in-place copy, optimizer still valid

    model.head = nn.Linear(CFG["hidden"], CFG["new_classes"])
    optimizer = build_optimizer(model, CFG["lr"])          # rebuilt after the swap

    head_before = model.head.weight.detach().clone()
    bb_before = model.backbone[0].weight.detach().clone()
    for step in range(CFG["steps"]):
        x, y = torch.randn(16, CFG["in_dim"]), torch.randint(0, CFG["new_classes"], (16,))
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}")
    assert not torch.equal(head_before, model.head.weight)
    assert not torch.equal(bb_before, model.backbone[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
