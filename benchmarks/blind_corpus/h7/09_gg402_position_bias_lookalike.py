"""GG402 look-alike (correct code) - integer tensors next to tensors that require grad.

A learned relative-position bias for a tiny sequence model.  Integer tensors are
everywhere (position indices from ``torch.arange``, bucket ids, long labels,
a step counter) and a learnable table is built with ``torch.full(...,
requires_grad=True)``, which looks like the "requires_grad on an int tensor"
mistake.  But the fill value is a float literal (``0.0``) so the table is
float32, and none of the integer tensors is ever asked to require grad.

Modelled on: https://github.com/pytorch/pytorch/issues/53466 (the corrected,
floating-point form suggested there)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

SEQ_LEN = 8
N_BUCKETS = 5
D = 12


def bucketize(rel):
    rel = rel.clamp(-(N_BUCKETS // 2), N_BUCKETS // 2)
    return rel + N_BUCKETS // 2


class BiasedAttentionPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(D, D)
        self.bias_table = torch.full((N_BUCKETS,), 0.0, requires_grad=True)
        positions = torch.arange(SEQ_LEN)
        self.register_buffer("buckets", bucketize(positions[None, :] - positions[:, None]))
        self.out = nn.Linear(D, 2)

    def forward(self, x):
        logits = self.score(x) @ x.transpose(1, 2) / D ** 0.5
        logits = logits + self.bias_table[self.buckets]
        pooled = (F.softmax(logits, dim=-1) @ x).mean(dim=1)
        return self.out(pooled)


def main():
    torch.manual_seed(0)
    model = BiasedAttentionPool()
    params = list(model.parameters()) + [model.bias_table]
    opt = torch.optim.Adam(params, lr=1e-2)
    step = torch.zeros((), dtype=torch.long)
    for _ in range(5):
        x = torch.randn(4, SEQ_LEN, D)
        y = torch.randint(0, 2, (4,), dtype=torch.long)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        step += 1
    assert model.bias_table.dtype == torch.float32 and model.bias_table.grad is not None
    print(f"step {int(step)} loss {loss.item():.4f} bias {model.bias_table.detach().tolist()}")


if __name__ == "__main__":
    main()
    print("OK")
