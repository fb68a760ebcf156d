"""GG110 (fixed) - softmax output given to CrossEntropyLoss.

Fix: the head returns raw logits; softmax is applied only when probabilities
are needed for reporting.

A BERT-style text classifier ends its head with nn.Softmax, and the training
loop feeds those probabilities to nn.CrossEntropyLoss, which applies
log_softmax again. The loss is squashed: it can never drop below
log((e + C - 1) / e) and gradients are tiny, so training crawls (silent).

Modelled on: https://github.com/illiterate/BertClassifier/issues/2
"""
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Config:
    vocab = 100
    max_len = 12
    d_model = 32
    heads = 4
    num_labels = 4
    batch_size = 8
    epochs = 2
    lr = 2e-3
    device = torch.device("cpu")


class MiniBert(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok = nn.Embedding(cfg.vocab, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_model)
        layer = nn.TransformerEncoderLayer(cfg.d_model, cfg.heads, 2 * cfg.d_model, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)

    def forward(self, input_ids, attention_mask):
        pos = torch.arange(input_ids.shape[1], device=input_ids.device)
        h = self.tok(input_ids) + self.pos(pos)
        return self.encoder(h, src_key_padding_mask=attention_mask == 0)


class BertClassifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.bert = MiniBert(cfg)
        self.dropout = nn.Dropout(0.1)
        self.linear = nn.Linear(cfg.d_model, cfg.num_labels)

    def forward(self, input_ids, attention_mask):
        pooled = self.bert(input_ids, attention_mask)[:, 0]
        return self.linear(self.dropout(pooled))


def build_loader(cfg):
    ids = torch.randint(1, cfg.vocab, (32, cfg.max_len))
    mask = torch.ones_like(ids)
    mask[:, -3:] = 0
    labels = torch.randint(0, cfg.num_labels, (32,))
    return DataLoader(TensorDataset(ids, mask, labels), batch_size=cfg.batch_size, shuffle=True)


def train(model, loader, optimizer, criterion, cfg):
    seen = []
    for epoch in range(cfg.epochs):
        model.train()
        for input_ids, attention_mask, labels in loader:
            output = model(input_ids.to(cfg.device), attention_mask.to(cfg.device))
            loss = criterion(output, labels.to(cfg.device))  # fixed: GG110
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            seen.append((output.detach(), loss.item()))
        print(f"epoch {epoch}: last loss {loss.item():.4f}")
    return seen


def main():
    torch.manual_seed(0)
    cfg = Config()
    model = BertClassifier(cfg).to(cfg.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    criterion = nn.CrossEntropyLoss()
    return cfg, train(model, build_loader(cfg), optimizer, criterion, cfg)


if __name__ == "__main__":
    cfg, seen = main()
    floor = math.log((math.e + cfg.num_labels - 1) / math.e)
    all_probs = all(torch.allclose(o.sum(-1), torch.ones(o.shape[0])) for o, _ in seen)
    assert not all_probs, "criterion still receives probabilities"
    print("FIXED: ok")
