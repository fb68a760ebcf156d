"""GG502 look-alike - .numpy() on model outputs inside torch.no_grad().

An embedding trainer exports its learned item vectors and the per-batch
similarity matrix to numpy for a projector / nearest-neighbour report.  The
export helper is decorated with @torch.no_grad(), so nothing it produces
requires grad and .numpy() is legal.  The embedding weight itself is read via
.detach() before conversion.  Runs cleanly.

Modelled on: none found (correct counterpart of the FedGen evaluate bug)
"""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = dict(n_items=50, dim=8, batch=16, steps=5, lr=0.05, temperature=0.2)


class ItemTower(nn.Module):
    def __init__(self, n_items, dim):
        super().__init__()
        self.emb = nn.Embedding(n_items, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids):
        return F.normalize(self.proj(self.emb(ids)), dim=-1)


def contrastive_loss(a, b, temperature):
    logits = a @ b.t() / temperature
    target = torch.arange(a.size(0))
    return F.cross_entropy(logits, target)


@torch.no_grad()
def export_embeddings(model, out_dir):
    model.eval()
    ids = torch.arange(CFG["n_items"])
    vecs = model(ids)
    sims = (vecs @ vecs.t()).numpy()
    raw = model.emb.weight.detach().numpy()
    np.save(os.path.join(out_dir, "item_vecs.npy"), vecs.numpy())
    np.save(os.path.join(out_dir, "raw_emb.npy"), raw)
    model.train()
    return sims


def train(model, optimizer, steps):
    history = []
    for step in range(steps):
        anchor = torch.randint(0, CFG["n_items"], (CFG["batch"],))
        positive = (anchor + 1) % CFG["n_items"]
        loss = contrastive_loss(model(anchor), model(positive), CFG["temperature"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    return history


def main():
    torch.manual_seed(0)
    model = ItemTower(CFG["n_items"], CFG["dim"])
    optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    hist = train(model, optimizer, CFG["steps"])
    out_dir = tempfile.mkdtemp()
    sims = export_embeddings(model, out_dir)
    nn_idx = np.argsort(-sims, axis=1)[:, 1]
    print(f"loss {hist[0]:.3f} -> {hist[-1]:.3f}; neighbour of item 0: {nn_idx[0]}")
    assert os.path.exists(os.path.join(out_dir, "item_vecs.npy"))


if __name__ == "__main__":
    main()
    print("OK")
