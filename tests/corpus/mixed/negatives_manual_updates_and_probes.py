"""Hand-written optimisation and gradient probes, the way tutorials write them, all correct.

* parameters created as leaves (`torch.randn(...) * 0.01` first, then `.requires_grad_()`);
* a manual SGD step in place under `torch.no_grad()`, gradients cleared with `.grad.zero_()`;
* `retain_grad()` on an intermediate before reading its `.grad`;
* float tensors with `requires_grad=True`, integer tensors without it;
* `.data` and `.detach()` used only for logging, after backward;
* a subclass calling `super().forward(x)` (not a direct `.forward` call on a module).
"""

import torch
from torch import nn

torch.manual_seed(0)

w = (torch.randn(5, 1) * 0.01).requires_grad_()
b = torch.zeros(1, requires_grad=True)
scale = torch.tensor(2.0, requires_grad=True)
indices = torch.tensor([0, 2, 4])

x = torch.randn(32, 5)
y = x @ torch.tensor([[1.0], [-2.0], [0.5], [0.0], [3.0]]) + 0.1

for step in range(50):
    hidden = x @ w
    hidden.retain_grad()
    pred = scale * hidden + b
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    if step == 0:
        print("grad of the intermediate:", hidden.grad.norm().item())
    with torch.no_grad():
        for p in (w, b, scale):
            p -= 0.05 * p.grad
            p.grad.zero_()
    last = loss.detach()

print("selected weights:", w.data[indices].flatten().tolist(), "loss", float(last))


class ScaledLinear(nn.Linear):
    def forward(self, x):
        return super().forward(x) * 0.5


layer = ScaledLinear(5, 1)
opt = torch.optim.SGD(layer.parameters(), lr=0.01)
opt.zero_grad()
layer(x).pow(2).mean().backward()
opt.step()
