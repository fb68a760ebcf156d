"""GG604 - the optimizer is built before new parameters are added to the model.

Adapter fine-tuning without a Trainer class: the script builds the backbone,
creates AdamW over model.parameters(), and only then calls
model.add_adapter(...) / model.train_adapter(...), which insert fresh bottleneck
adapter layers and freeze the backbone.  The optimizer only knows the old
(now frozen) parameters, so the adapters get gradients but are never updated
and nothing in the model changes.
No error is raised (silent).

Modelled on: https://github.com/adapter-hub/adapters/issues/260
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ARGS = {"vocab": 64, "d_model": 32, "layers": 2, "reduction": 4, "seq": 8,
        "lr": 1e-3, "epochs": 2, "batch": 8, "task_name": "sst2"}


class BottleneckAdapter(nn.Module):
    def __init__(self, d_model, reduction):
        super().__init__()
        self.down = nn.Linear(d_model, d_model // reduction)
        self.up = nn.Linear(d_model // reduction, d_model)

    def forward(self, h):
        return h + self.up(F.relu(self.down(h)))


class Block(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(d_model, 2 * d_model), nn.GELU(), nn.Linear(2 * d_model, d_model))
        self.norm = nn.LayerNorm(d_model)
        self.adapters = nn.ModuleDict()
        self.active = None

    def forward(self, h):
        h = self.norm(h + self.ff(h))
        if self.active is not None:
            h = self.adapters[self.active](h)
        return h


class TinyEncoderForClassification(nn.Module):
    def __init__(self, vocab, d_model, layers, num_labels=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.blocks = nn.ModuleList([Block(d_model) for _ in range(layers)])
        self.classifier = nn.Linear(d_model, num_labels)

    def add_adapter(self, name, reduction):
        for blk in self.blocks:
            blk.adapters[name] = BottleneckAdapter(self.embed.embedding_dim, reduction)

    def train_adapter(self, name):
        for p in self.parameters():
            p.requires_grad = False
        for blk in self.blocks:
            blk.active = name
            for p in blk.adapters[name].parameters():
                p.requires_grad = True

    def forward(self, input_ids, labels=None):
        h = self.embed(input_ids)
        for blk in self.blocks:
            h = blk(h)
        logits = self.classifier(h.mean(1))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return loss, logits


def run_training(model, optimizer, loader, epochs):
    model.train()
    for epoch in range(epochs):
        for step, (ids, labels) in enumerate(loader):
            loss, _ = model(ids, labels=labels)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        print(f"epoch {epoch} last loss {loss.item():.4f}")


def main():
    torch.manual_seed(11)
    ids = torch.randint(0, ARGS["vocab"], (32, ARGS["seq"]))
    labels = (ids.float().mean(1) > ARGS["vocab"] / 2).long()
    loader = DataLoader(TensorDataset(ids, labels), batch_size=ARGS["batch"], shuffle=True)

    model = TinyEncoderForClassification(ARGS["vocab"], ARGS["d_model"], ARGS["layers"])
    # pretend we loaded pretrained weights here
    optimizer = torch.optim.AdamW(model.parameters(), lr=ARGS["lr"])  # bug: GG604
    model.add_adapter(ARGS["task_name"], ARGS["reduction"])
    model.train_adapter(ARGS["task_name"])

    adapter = model.blocks[0].adapters[ARGS["task_name"]]
    before = adapter.down.weight.detach().clone()
    run_training(model, optimizer, loader, ARGS["epochs"])
    with tempfile.TemporaryDirectory() as tmp:
        torch.save(adapter.state_dict(), os.path.join(tmp, f"adapter_{ARGS['task_name']}.pt"))
    return before, adapter.down.weight.detach()


if __name__ == "__main__":
    before, after = main()
    if torch.equal(before, after):
        print("BUGGY: adapter weights unchanged after training - optimizer was built before add_adapter()")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
