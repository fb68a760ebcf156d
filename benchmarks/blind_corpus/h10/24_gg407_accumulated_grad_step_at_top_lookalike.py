"""GG407 look-alike: ``p.grad`` used above ``loss.backward()`` in the loop body.

Gradient accumulation written "step first": at the top of every iteration the
loop checks whether ``accum_steps`` micro-batches have been backpropagated; if
so it averages ``p.grad``, clips, steps and clears.  The ``.grad`` read comes
textually before this iteration's ``backward()``, which is how the
"grad used before backward" mistake looks, but it only runs when ``i > 0`` and
``i % accum_steps == 0``, i.e. after ``accum_steps`` backward calls have filled
the gradients since the last ``zero_grad()``.
Modelled on: none (counter-example to https://github.com/KaiyangZhou/pytorch-center-loss/issues/4)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HP = {"accum_steps": 3, "micro_batch": 4, "lr": 5e-3, "max_norm": 1.0, "epochs": 2}


class TabularNet(nn.Module):
    def __init__(self, d_in=10, d_hidden=32, n_out=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.LayerNorm(d_hidden), nn.SiLU(),
                                 nn.Linear(d_hidden, n_out))

    def forward(self, x):
        return self.net(x)


def apply_accumulated(model, optimizer, hp):
    for p in model.parameters():
        p.grad.div_(hp["accum_steps"])
    norm = nn.utils.clip_grad_norm_(model.parameters(), hp["max_norm"])
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return norm.item()


def train(model, loader, optimizer, hp):
    updates = 0
    for epoch in range(hp["epochs"]):
        model.train()
        optimizer.zero_grad(set_to_none=True)
        for i, (x, y) in enumerate(loader):
            if i > 0 and i % hp["accum_steps"] == 0:
                norm = apply_accumulated(model, optimizer, hp)
                updates += 1
                print(f"epoch {epoch} update {updates}: grad norm {norm:.3f}")
            loss = F.cross_entropy(model(x), y)
            loss.backward()
    return updates


def main():
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(48, 10), torch.randint(0, 3, (48,))),
                        batch_size=HP["micro_batch"], shuffle=True)
    model = TabularNet()
    optimizer = torch.optim.AdamW(model.parameters(), lr=HP["lr"])
    assert train(model, loader, optimizer, HP) > 0


if __name__ == "__main__":
    main()
    print("OK")
