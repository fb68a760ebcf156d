"""GG602 look-alike - a module called in forward() with its result unused, on purpose.

A small self-attention encoder has an ActivationProbe submodule that records a
running mean and max of the attention entropy in buffers, for monitoring
collapse.  forward() calls self.probe(attn) as a statement: the probe returns
None, and its whole job is the side effect on its buffers.  The model's output
does not depend on it.  A checker that flags every module call whose result is
discarded would be wrong here.

Modelled on: https://github.com/yjxiong/tsn-pytorch/issues/41 (correct counterpart)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"vocab": 50, "d_model": 32, "seq": 10, "classes": 2, "epochs": 2, "lr": 2e-3, "bs": 8}


class ActivationProbe(nn.Module):
    """Keeps running statistics of attention entropy; returns nothing."""

    def __init__(self, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running_entropy", torch.zeros(()))
        self.register_buffer("max_entropy", torch.zeros(()))
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))

    @torch.no_grad()
    def forward(self, attn):
        ent = -(attn * attn.clamp_min(1e-9).log()).sum(-1).mean()
        self.running_entropy.mul_(1 - self.momentum).add_(self.momentum * ent)
        self.max_entropy.copy_(torch.maximum(self.max_entropy, ent))
        self.calls += 1


class AttentionBlock(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.norm = nn.LayerNorm(d_model)
        self.probe = ActivationProbe()

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        attn = torch.softmax(q @ k.transpose(-2, -1) / q.size(-1) ** 0.5, dim=-1)
        self.probe(attn)
        return self.norm(x + self.proj(attn @ v))


class Classifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg["vocab"], cfg["d_model"])
        self.pos = nn.Parameter(torch.zeros(1, cfg["seq"], cfg["d_model"]))
        self.block = AttentionBlock(cfg["d_model"])
        self.head = nn.Linear(cfg["d_model"], cfg["classes"])

    def forward(self, ids):
        h = self.block(self.emb(ids) + self.pos)
        return self.head(h.mean(1))


def train_one_epoch(model, loader, optimizer):
    model.train()
    losses = []
    for ids, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(ids), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)


def main():
    torch.manual_seed(5)
    ids = torch.randint(0, CFG["vocab"], (40, CFG["seq"]))
    y = (ids[:, 0] > CFG["vocab"] // 2).long()
    loader = DataLoader(TensorDataset(ids, y), batch_size=CFG["bs"], shuffle=True)
    model = Classifier(CFG)
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    for ep in range(CFG["epochs"]):
        print(f"epoch {ep} loss {train_one_epoch(model, loader, opt):.4f} "
              f"attn-entropy {model.block.probe.running_entropy.item():.3f}")
    return model, ids[:4]


if __name__ == "__main__":
    model, ids = main()
    probe = model.block.probe
    assert probe.calls.item() > 0 and probe.running_entropy.item() > 0
    model.eval()
    with torch.no_grad():
        assert torch.equal(model(ids), model(ids))
    print("OK")
