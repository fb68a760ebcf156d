"""GG604 look-alike - model "replaced" after the optimizer exists, but in place.

The optimizer is built first; afterwards the weights are overwritten with
model.load_state_dict(...) and the head is re-initialised with nn.init / copy_ under
torch.no_grad(). All of these modify the existing Parameter objects, so the optimizer
still updates the live weights. The new head module is created *before* the optimizer.
"""
import os
import tempfile

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, n_out=5):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 24), nn.ReLU())
        self.head = nn.Linear(24, n_out)

    def forward(self, x):
        return self.head(self.body(x))


def main():
    torch.manual_seed(0)
    model = Net()
    model.head = nn.Linear(24, 2)   # swap head for a 2-class task, before the optimizer
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)

    with tempfile.TemporaryDirectory() as tmp:
        donor = Net()
        torch.save(donor.body.state_dict(), os.path.join(tmp, "body.pt"))
        model.body.load_state_dict(torch.load(os.path.join(tmp, "body.pt")))
    with torch.no_grad():
        nn.init.zeros_(model.head.bias)
        model.head.weight.copy_(torch.randn_like(model.head.weight) * 0.01)

    before = {k: v.clone() for k, v in model.state_dict().items()}
    x, y = torch.randn(32, 6), torch.randint(0, 2, (32,))
    for _ in range(10):
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    changed = [k for k, v in model.state_dict().items() if not torch.equal(before[k], v)]
    assert set(changed) == set(before), changed


if __name__ == "__main__":
    main()
    print("OK")
