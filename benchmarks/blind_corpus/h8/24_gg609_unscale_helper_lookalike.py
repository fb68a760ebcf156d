"""GG609 look-alike - AMP + gradient accumulation + clipping, with unscale_ in a helper.

The loop back-propagates `scaler.scale(loss / ACCUM)` and, on accumulation
boundaries, calls `clip_grad_norm_` followed by `scaler.step()`.  No
`scaler.unscale_` appears next to the clip, which is what the bug looks like -
but `prepare_grads_for_update()` (called just before the clip) runs
`scaler.unscale_(optimizer)` once per step, after all micro-batches are in.
Correct: clipping sees true gradient norms and the updates have normal size.

Modelled on: https://github.com/pytorch/examples/issues/1196
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ACCUM = 2
MAX_NORM = 1.0
LR = 0.05
EPOCHS = 1


class GatedMLP(nn.Module):
    def __init__(self, d_in=16, d_hidden=64, n_out=3):
        super().__init__()
        self.up = nn.Linear(d_in, 2 * d_hidden)
        self.down = nn.Linear(d_hidden, d_in)
        self.norm = nn.LayerNorm(d_in)
        self.out = nn.Linear(d_in, n_out)

    def forward(self, x):
        a, b = self.up(x).chunk(2, dim=-1)
        x = self.norm(x + self.down(a * torch.sigmoid(b)))
        return self.out(x)


def prepare_grads_for_update(scaler, optimizer):
    """Bring gradients back to their true scale so they can be inspected / clipped."""
    scaler.unscale_(optimizer)


def train(model, loader, optimizer, scaler):
    update_sizes, norms = [], []
    model.train()
    for epoch in range(EPOCHS):
        optimizer.zero_grad(set_to_none=True)
        for i, (x, y) in enumerate(loader):
            with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
                logits = model(x)
            loss = F.cross_entropy(logits.float(), y) / ACCUM
            scaler.scale(loss).backward()
            if (i + 1) % ACCUM == 0:
                prepare_grads_for_update(scaler, optimizer)
                norm = torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
                before = [p.detach().clone() for p in model.parameters()]
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad(set_to_none=True)
                delta = torch.sqrt(sum(((p.detach() - b) ** 2).sum() for p, b in zip(model.parameters(), before)))
                update_sizes.append(delta.item() / LR)
                norms.append(norm.item())
        print(f"epoch {epoch}: grad norms {[round(n, 3) for n in norms]}")
    return update_sizes, norms


def check_training():
    torch.manual_seed(0)
    x = torch.randn(64, 16)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 1).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
    model = GatedMLP()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    scaler = torch.amp.GradScaler("cpu")
    sizes, norms = train(model, loader, optimizer, scaler)
    for size, norm in zip(sizes, norms):
        assert abs(size - min(norm, MAX_NORM)) < 1e-3 * max(1.0, size), (size, norm)


if __name__ == "__main__":
    check_training()
    print("OK")
