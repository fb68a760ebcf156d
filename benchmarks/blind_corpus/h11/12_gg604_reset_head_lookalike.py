"""GG604 look-alike - parameters re-initialised after the optimizer was built, in place.

Correct code: the fine-tuning script builds its optimizer first, then loads a
"pretrained" checkpoint with load_state_dict() and re-initialises the classifier with
reset_parameters() / nn.init. All of these copy into the existing Parameter objects,
so the optimizer still owns the model's real parameters and training updates them
(checked). Runs cleanly.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"in_dim": 12, "feat": 32, "classes": 3, "lr": 1e-2, "epochs": 2}


class Backbone(nn.Module):
    def __init__(self, in_dim, feat):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(in_dim, feat), nn.ReLU(), nn.Linear(feat, feat), nn.ReLU())

    def forward(self, x):
        return self.layers(x)


class Classifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = Backbone(cfg["in_dim"], cfg["feat"])
        self.fc = nn.Linear(cfg["feat"], cfg["classes"])

    def forward(self, x):
        return self.fc(self.backbone(x))


def make_pretrained_checkpoint(cfg, path):
    donor = Classifier(cfg)
    torch.save(donor.state_dict(), path)


def prepare_for_finetune(model, ckpt_path):
    state = torch.load(ckpt_path)
    model.load_state_dict(state)            # copies into existing tensors
    model.fc.reset_parameters()             # fresh head, same Parameter objects
    nn.init.zeros_(model.fc.bias)
    for p in model.backbone.layers[0].parameters():
        p.requires_grad_(False)             # freeze first layer
    return model


def train(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    ckpt = os.path.join(tempfile.gettempdir(), "h11_gg604_pretrained.pt")
    make_pretrained_checkpoint(CFG, ckpt)
    model = Classifier(CFG)
    optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    model = prepare_for_finetune(model, ckpt)
    head_before = model.fc.weight.detach().clone()
    frozen_before = model.backbone.layers[0].weight.detach().clone()
    loader = DataLoader(TensorDataset(torch.randn(48, CFG["in_dim"]), torch.randint(0, 3, (48,))), batch_size=12)
    train(model, loader, optimizer, CFG["epochs"])
    assert not torch.equal(head_before, model.fc.weight)
    assert torch.equal(frozen_before, model.backbone.layers[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
