"""Look-alike: torch.tensor used on plain floats for logging and on labels.

Modelled on: https://github.com/thuml/predrnn-pytorch/issues/11 (counterpart)

The per-layer losses are combined with torch.stack for the objective; a
separate torch.tensor([...]) is built from their .item() values only for the
metrics dict, and another torch.tensor wraps integer labels.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(6, 6) for _ in range(3)])
        self.cls = nn.Linear(6, 3)

    def forward(self, x):
        per_layer = []
        for layer in self.layers:
            x = torch.tanh(layer(x))
            per_layer.append(x.pow(2).mean())
        return self.cls(x), per_layer


def train_step(model, opt, x, labels):
    y = torch.tensor(labels, dtype=torch.long)
    logits, per_layer = model(x)
    reg = torch.stack(per_layer).mean()
    loss = F.cross_entropy(logits, y) + 0.01 * reg
    opt.zero_grad()
    loss.backward()
    opt.step()
    metrics = torch.tensor([t.item() for t in per_layer])
    return loss.item(), metrics


if __name__ == "__main__":
    torch.manual_seed(0)
    m = Model()
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    _, metrics = train_step(m, opt, torch.randn(4, 6), [0, 1, 2, 1])
    assert metrics.shape == (3,) and m.layers[0].weight.grad is not None
    print("OK")
