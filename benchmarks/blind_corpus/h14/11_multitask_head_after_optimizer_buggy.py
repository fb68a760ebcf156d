"""GG604 - optimizer built before the model's head was replaced.

A multi-task NLU learner builds its AdamW optimizer in __init__ from the
model's parameters.  The task setup code then swaps in a new task-specific
classifier head (model.classifier = nn.Linear(...)) for the label count of
the new task.  The optimizer still holds the old head's tensors, so the new
head receives gradients but is never updated.  Silent: no error; the new
head's weights are identical before and after training.

Modelled on: https://github.com/namisan/mt-dnn/pull/40
"""
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

OPTS = {"vocab": 60, "hidden": 32, "init_labels": 2, "lr": 5e-3, "epochs": 2, "grad_clip": 1.0}


class SanBertLike(nn.Module):
    def __init__(self, vocab, hidden, n_labels):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        layer = nn.TransformerEncoderLayer(hidden, nhead=4, dim_feedforward=64, batch_first=True, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1)
        self.classifier = nn.Linear(hidden, n_labels)

    def forward(self, ids):
        h = self.encoder(self.embed(ids))
        return self.classifier(h[:, 0])


class MTDNNModel:
    def __init__(self, opts, network):
        self.opts = opts
        self.network = network
        self.optimizer = torch.optim.AdamW(self.network.parameters(), lr=opts["lr"])
        self.updates = 0

    def add_task_head(self, n_labels):
        self.network.classifier = nn.Linear(self.opts["hidden"], n_labels)  # bug: GG604

    def update(self, ids, labels):
        self.network.train()
        logits = self.network(ids)
        loss = nn.functional.cross_entropy(logits, labels)
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.network.parameters(), self.opts["grad_clip"])
        self.optimizer.step()
        self.updates += 1
        return loss.item()

    def save(self, path):
        torch.save({"state": self.network.state_dict(), "optimizer": self.optimizer.state_dict()}, path)


def build_task_loader(n_labels, vocab, n=48, seq=10):
    ids = torch.randint(0, vocab, (n, seq))
    labels = torch.randint(0, n_labels, (n,))
    return DataLoader(TensorDataset(ids, labels), batch_size=8, shuffle=True)


def main():
    torch.manual_seed(0)
    net = SanBertLike(OPTS["vocab"], OPTS["hidden"], OPTS["init_labels"])
    learner = MTDNNModel(OPTS, net)

    task = {"name": "mnli", "n_labels": 3}
    learner.add_task_head(task["n_labels"])
    loader = build_task_loader(task["n_labels"], OPTS["vocab"])

    head_before = learner.network.classifier.weight.detach().clone()
    for epoch in range(OPTS["epochs"]):
        losses = [learner.update(ids, y) for ids, y in loader]
        print(f"[{task['name']}] epoch {epoch} loss {sum(losses) / len(losses):.4f} updates {learner.updates}")
    learner.save(os.path.join(tempfile.mkdtemp(), "model_0.pt"))
    head_after = learner.network.classifier.weight.detach()
    return torch.equal(head_before, head_after)


if __name__ == "__main__":
    unchanged = main()
    if unchanged:
        print("BUGGY: the new classifier head was never updated by the optimizer")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
