"""GG105 look-alike - torch.tensor() used on plain numbers next to a multi-task loss.

The trainer builds class weights with torch.tensor(list of Python floats), and
packs per-task loss values for logging with torch.tensor([l.item() ...]).  The
loss actually backpropagated is combined with torch.stack(), which keeps the
graph.  Nothing with history goes through torch.tensor() on the way to
backward().  Prints OK.

Modelled on: none found
"""
from collections import Counter

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

TASKS = {"topic": 4, "sentiment": 3}
VOCAB, EMB, HID, SEQ = 50, 16, 24, 10


class SharedEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB, padding_idx=0)
        self.gru = nn.GRU(EMB, HID, batch_first=True, bidirectional=True)

    def forward(self, tokens):
        out, _ = self.gru(self.emb(tokens))
        return out.mean(1)


class MultiTaskModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = SharedEncoder()
        self.heads = nn.ModuleDict({t: nn.Linear(2 * HID, n) for t, n in TASKS.items()})

    def forward(self, tokens):
        h = self.encoder(tokens)
        return {t: head(h) for t, head in self.heads.items()}


def class_weights(labels, n_classes):
    counts = Counter(labels.tolist())
    total = float(len(labels))
    return torch.tensor([total / (n_classes * max(counts.get(c, 0), 1)) for c in range(n_classes)])


def compute_loss(outputs, targets, weights):
    per_task = [F.cross_entropy(outputs[t], targets[t], weight=weights[t]) for t in TASKS]
    total = torch.stack(per_task).sum()
    logged = torch.tensor([l.item() for l in per_task])
    return total, logged


def train_epoch(model, loader, optimizer, weights):
    model.train()
    history = []
    for tokens, y_topic, y_sent in loader:
        optimizer.zero_grad()
        outputs = model(tokens)
        total, logged = compute_loss(outputs, {"topic": y_topic, "sentiment": y_sent}, weights)
        total.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        history.append(logged)
    return torch.stack(history).mean(0)


def main():
    torch.manual_seed(0)
    tokens = torch.randint(1, VOCAB, (32, SEQ))
    y_topic = torch.randint(0, TASKS["topic"], (32,))
    y_sent = torch.randint(0, TASKS["sentiment"], (32,))
    weights = {"topic": class_weights(y_topic, TASKS["topic"]), "sentiment": class_weights(y_sent, TASKS["sentiment"])}
    loader = DataLoader(TensorDataset(tokens, y_topic, y_sent), batch_size=8, shuffle=True)
    model = MultiTaskModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    w0 = model.encoder.emb.weight.detach().clone()
    for epoch in range(2):
        mean_losses = train_epoch(model, loader, optimizer, weights)
        print(f"epoch {epoch}: " + ", ".join(f"{t}={v:.3f}" for t, v in zip(TASKS, mean_losses.tolist())))
    assert not torch.equal(w0, model.encoder.emb.weight)


if __name__ == "__main__":
    main()
    print("OK")
