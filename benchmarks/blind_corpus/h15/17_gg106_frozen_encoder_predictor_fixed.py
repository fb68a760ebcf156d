"""GG106 - embeddings produced under torch.inference_mode() fed to a trainable head.

Category: GG106 (inference tensor used in a computation autograd must save).
The mistake: sentence embeddings come from a frozen encoder wrapped in a
Predictor whose predict() is decorated with @torch.inference_mode() (it is
also used for serving).  The review classifier trained on top passes those
embeddings into nn.Linear, which must save its input for the weight
gradient, so the forward raises
    RuntimeError: Inference tensors cannot be saved for backward. ...
This file: FIXED version - predict() uses @torch.no_grad(), which gives
ordinary (history-free) tensors that autograd may save.
Modelled on: https://github.com/deepjavalibrary/djl/issues/2144
"""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = {"vocab": 100, "max_len": 16, "d_model": 32, "classes": 5, "batch": 8,
           "epochs": 2, "lr": 1e-3}


class TinyEncoder(nn.Module):
    """Stands in for a pretrained DistilBERT-like text encoder."""

    def __init__(self, vocab, d_model, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, 4, 64, dropout=0.0, batch_first=True)
        self.layers = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, ids, mask):
        pos = torch.arange(ids.size(1)).expand_as(ids)
        return self.layers(self.tok(ids) + self.pos(pos), src_key_padding_mask=~mask)


class Predictor:
    """Serving wrapper: ids -> pooled embedding."""

    def __init__(self, model):
        self.model = model.eval()

    @torch.no_grad()
    def predict(self, ids):
        mask = ids != 0
        hidden = self.model(ids, mask)
        summed = (hidden * mask.unsqueeze(-1)).sum(1)
        return summed / mask.sum(1, keepdim=True).clamp(min=1)


class ReviewClassifier(nn.Module):
    def __init__(self, embedder, d_model, classes):
        super().__init__()
        self.embedder = embedder
        self.block = nn.Sequential(nn.Linear(d_model, 64), nn.ReLU(), nn.Dropout(0.1),
                                   nn.Linear(64, classes))

    def forward(self, ids):
        data = self.embedder.predict(ids)
        return self.block(data)  # fixed: GG106


def train_epoch(model, loader, optimizer, loss_fn):
    model.train()
    total, n = 0.0, 0
    for ids, stars in loader:
        logits = model(ids)
        loss = loss_fn(logits, stars)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * ids.size(0)
        n += ids.size(0)
    return total / n


def main():
    torch.manual_seed(0)
    hp = HPARAMS
    embedder = Predictor(TinyEncoder(hp["vocab"], hp["d_model"], hp["max_len"]))
    clf = ReviewClassifier(embedder, hp["d_model"], hp["classes"])
    ids = torch.randint(1, hp["vocab"], (32, hp["max_len"]))
    ids[:, 12:] = 0
    loader = DataLoader(TensorDataset(ids, torch.randint(0, hp["classes"], (32,))),
                        batch_size=hp["batch"], shuffle=True)
    optimizer = torch.optim.AdamW(clf.block.parameters(), lr=hp["lr"])
    for epoch in range(hp["epochs"]):
        print(f"epoch {epoch}: loss {train_epoch(clf, loader, optimizer, nn.CrossEntropyLoss()):.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
