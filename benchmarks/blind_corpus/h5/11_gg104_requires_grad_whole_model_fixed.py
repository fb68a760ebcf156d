"""Category GG104 -- backward() through a model whose every parameter is frozen.
Status: fixed -- only `model.encoder` is frozen; the head stays trainable.
Fine-tuning a pretrained LSTM sentence encoder with a new classification head.  The
helper meant to freeze only the encoder calls `requires_grad_(False)` on the whole
wrapper model, head included.  The optimizer is built from a filtered (empty-ish)
parameter list afterwards, and the first backward() raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Modelled on: https://runebook.dev/en/docs/pytorch/generated/torch.nn.module/torch.nn.Module.requires_grad_
"""
import os
import sys
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SETTINGS = {"vocab": 40, "emb": 16, "hid": 32, "n_labels": 2, "seq": 10, "bs": 8,
            "epochs": 3, "lr": 1e-3, "patience": 2}


class SentenceEncoder(nn.Module):
    def __init__(self, vocab, emb, hid):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hid, num_layers=2, batch_first=True)

    def forward(self, tokens):
        _, (h, _) = self.lstm(self.emb(tokens))
        return h[-1]


class FineTuneModel(nn.Module):
    def __init__(self, encoder, hid, n_labels):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(hid, n_labels))

    def forward(self, tokens):
        return self.head(self.encoder(tokens))


def freeze_backbone(model):
    model.encoder.requires_grad_(False)
    n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"trainable parameters after freezing: {n_trainable}")


class Trainer:
    def __init__(self, model, cfg, ckpt_dir):
        self.model, self.cfg, self.ckpt_dir = model, cfg, ckpt_dir
        params = [p for p in model.parameters() if p.requires_grad] or list(model.head.parameters())
        self.optimizer = torch.optim.Adam(params, lr=cfg["lr"])
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=cfg["epochs"])
        self.criterion = nn.CrossEntropyLoss()
        self.best, self.bad_epochs = float("inf"), 0

    def train_epoch(self, loader):
        self.model.train()
        total = 0.0
        for tokens, labels in loader:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(tokens), labels)
            loss.backward()  # fixed: GG104
            self.optimizer.step()
            total += loss.item()
        self.scheduler.step()
        return total / len(loader)

    def fit(self, loader):
        for epoch in range(self.cfg["epochs"]):
            loss = self.train_epoch(loader)
            print(f"epoch {epoch} loss {loss:.4f} lr {self.scheduler.get_last_lr()[0]:.2e}")
            if loss < self.best:
                self.best, self.bad_epochs = loss, 0
                torch.save(self.model.state_dict(), os.path.join(self.ckpt_dir, "best.pt"))
            else:
                self.bad_epochs += 1
                if self.bad_epochs >= self.cfg["patience"]:
                    break


def main():
    torch.manual_seed(0)
    c = SETTINGS
    encoder = SentenceEncoder(c["vocab"], c["emb"], c["hid"])  # pretend: loaded from a checkpoint
    model = FineTuneModel(encoder, c["hid"], c["n_labels"])
    freeze_backbone(model)
    tokens = torch.randint(0, c["vocab"], (32, c["seq"]))
    labels = (tokens.float().mean(1) > c["vocab"] / 2).long()
    loader = DataLoader(TensorDataset(tokens, labels), batch_size=c["bs"], shuffle=True)
    with tempfile.TemporaryDirectory() as d:
        Trainer(model, c, d).fit(loader)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
