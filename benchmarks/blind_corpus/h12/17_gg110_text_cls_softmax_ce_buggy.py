"""GG110 - softmax probabilities passed to CrossEntropyLoss.

A small Transformer sentence classifier ends its forward() with
out.softmax(dim=1), and the training loop feeds that output to
nn.CrossEntropyLoss, which applies log_softmax again. The loss is computed on
"probabilities of probabilities": it can never go below log(1 + (C-1)/e)
(0.313 for two classes) and its gradients are squashed, so even memorising a
tiny batch stalls. No error is raised (silent).

Modelled on: https://github.com/lansinuote/Huggingface_Toturials/issues/6
(Model.forward() applied softmax before torch.nn.CrossEntropyLoss).
"""
import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"vocab_size": 100, "d_model": 32, "n_heads": 4, "max_len": 12, "num_labels": 2,
          "lr": 3e-3, "epochs": 20, "batch_size": 16}


class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok = nn.Embedding(cfg["vocab_size"], cfg["d_model"])
        self.pos = nn.Parameter(torch.zeros(1, cfg["max_len"], cfg["d_model"]))
        layer = nn.TransformerEncoderLayer(cfg["d_model"], cfg["n_heads"], dim_feedforward=64,
                                           dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1)
        self.fc = nn.Linear(cfg["d_model"], cfg["num_labels"])

    def forward(self, input_ids):
        h = self.encoder(self.tok(input_ids) + self.pos[:, : input_ids.size(1)])
        out = self.fc(h[:, 0])
        out = out.softmax(dim=1)
        return out


def train(model, loader, optimizer, criterion, epochs):
    model.train()
    last = None
    for epoch in range(epochs):
        for i, (input_ids, labels) in enumerate(loader):
            out = model(input_ids)
            loss = criterion(out, labels)  # bug: GG110
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            last = loss.item()
        if epoch % 5 == 0:
            acc = (out.argmax(dim=1) == labels).float().mean().item()
            print(f"epoch {epoch}: loss {last:.4f} acc {acc:.3f}")
    return last


def main():
    torch.set_num_threads(1)  # small model: threading overhead dominates on CPU
    torch.manual_seed(0)
    ids = torch.randint(1, CONFIG["vocab_size"], (16, CONFIG["max_len"]))
    labels = torch.randint(0, CONFIG["num_labels"], (16,))
    loader = DataLoader(TensorDataset(ids, labels), batch_size=CONFIG["batch_size"], shuffle=True)
    model = Model(CONFIG)
    optimizer = torch.optim.AdamW(model.parameters(), lr=CONFIG["lr"])
    final = train(model, loader, optimizer, nn.CrossEntropyLoss(), CONFIG["epochs"])
    floor = math.log(1 + (CONFIG["num_labels"] - 1) / math.e)
    return final, floor


if __name__ == "__main__":
    final, floor = main()
    if final >= floor:
        print(f"BUGGY: memorising 16 sentences, the loss stays at {final:.4f}, above the softmax floor {floor:.4f}")
    else:
        raise SystemExit("NO BUG")
