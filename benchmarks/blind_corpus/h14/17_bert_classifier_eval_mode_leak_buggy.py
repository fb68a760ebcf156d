"""GG607 - model.eval() in the epoch loop, never switched back to train().

A BERT-style sentence classifier script calls model.train() once before the
epoch loop.  Each epoch runs _train_epoch() and then _eval_epoch(), which
switches the model to eval mode.  Nothing switches it back, so from the
second epoch on every training step runs with dropout disabled.  Silent: no
error; the model is in eval mode during training steps of epoch 2.

Modelled on: https://github.com/asyml/texar-pytorch/issues/310
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--max_seq_length", type=int, default=12)
parser.add_argument("--num_classes", type=int, default=2)
parser.add_argument("--hidden", type=int, default=32)
parser.add_argument("--dropout", type=float, default=0.1)
parser.add_argument("--max_train_epoch", type=int, default=3)
parser.add_argument("--lr", type=float, default=2e-4)


class BertLikeClassifier(nn.Module):
    def __init__(self, vocab, hidden, n_classes, dropout):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, hidden)
        layer = nn.TransformerEncoderLayer(hidden, 4, 2 * hidden, dropout=dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(hidden, n_classes)

    def forward(self, input_ids):
        pooled = self.encoder(self.embeddings(input_ids))[:, 0]
        return self.classifier(self.dropout(pooled))


def main(argv=None):
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = BertLikeClassifier(100, args.hidden, args.num_classes, args.dropout).to(device)
    optim = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optim, lambda s: min(1.0, (s + 1) / 4))

    ids = torch.randint(0, 100, (40, args.max_seq_length))
    labels = torch.randint(0, args.num_classes, (40,))
    train_data = DataLoader(TensorDataset(ids[:32], labels[:32]), batch_size=8, shuffle=True)
    eval_data = DataLoader(TensorDataset(ids[32:], labels[32:]), batch_size=8)
    modes_seen = []

    def _train_epoch():
        for input_ids, y in train_data:
            input_ids, y = input_ids.to(device), y.to(device)
            modes_seen.append(model.training)
            loss = F.cross_entropy(model(input_ids), y)
            optim.zero_grad()
            loss.backward()
            optim.step()
            scheduler.step()

    @torch.no_grad()
    def _eval_epoch():
        model.eval()  # bug: GG607
        correct, total = 0, 0
        for input_ids, y in eval_data:
            preds = model(input_ids.to(device)).argmax(-1)
            correct += (preds == y).sum().item()
            total += y.numel()
        print(f"eval accu: {correct / total:.4f}")

    model.train()
    for epoch in range(args.max_train_epoch):
        _train_epoch()
        _eval_epoch()
    return modes_seen


if __name__ == "__main__":
    modes = main([])
    if not all(modes):
        print(f"BUGGY: {modes.count(False)} of {len(modes)} training steps ran with the model in eval mode")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
