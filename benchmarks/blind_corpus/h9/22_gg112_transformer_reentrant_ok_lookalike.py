"""GG112 look-alike - reentrant checkpoint whose input does require grad.

A small Transformer encoder with gradient checkpointing (use_reentrant=True) on
every layer. Token ids do not require grad, but they go through the embedding
(not checkpointed) first, so the tensor handed to the first checkpointed layer
has a grad_fn and every layer gets gradients. Correct code.

Modelled on: https://github.com/pytorch/pytorch/issues/7617 (output of a reentrant checkpoint follows its inputs)
"""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

HP = {"vocab": 40, "d_model": 32, "heads": 4, "layers": 2, "n_cls": 3, "seq": 10,
      "lr": 1e-3, "steps": 6, "batch": 8, "grad_ckpt": True}


class EncoderLayer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln1 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.ln2 = nn.LayerNorm(d)

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.ff(self.ln2(x))


class TextEncoder(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.tok = nn.Embedding(hp["vocab"], hp["d_model"])
        self.pos = nn.Parameter(torch.zeros(1, hp["seq"], hp["d_model"]))
        self.layers = nn.ModuleList(EncoderLayer(hp["d_model"], hp["heads"]) for _ in range(hp["layers"]))
        self.cls = nn.Linear(hp["d_model"], hp["n_cls"])
        self.grad_ckpt = hp["grad_ckpt"]

    def forward(self, ids):
        x = self.tok(ids) + self.pos
        for layer in self.layers:
            if self.grad_ckpt and self.training:
                x = checkpoint(layer, x, use_reentrant=True)
            else:
                x = layer(x)
        return self.cls(x.mean(1))


def train_step(model, batch, optimizer, criterion):
    ids, labels = batch
    loss = criterion(model(ids), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = TextEncoder(HP)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=HP["lr"])
    criterion = nn.CrossEntropyLoss()
    before = model.layers[0].ff[0].weight.detach().clone()
    for step in range(HP["steps"]):
        ids = torch.randint(0, HP["vocab"], (HP["batch"], HP["seq"]))
        loss = train_step(model, (ids, ids[:, 0] % HP["n_cls"]), optimizer, criterion)
    assert all(p.grad is not None for p in model.layers.parameters())
    assert not torch.equal(before, model.layers[0].ff[0].weight)
    print(f"last loss {loss:.4f}")


if __name__ == "__main__":
    main()
    print("OK")
