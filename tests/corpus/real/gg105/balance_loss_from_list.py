"""A mixture-of-experts library that collects each gate's load-balancing loss in a list and
turns the list into one tensor with `torch.tensor(loss_list)`: the copy is a new leaf with
no history, so the balance loss added to the language-model loss sends no gradient to any
gate (training runs, the experts stay unbalanced). The reporter's fix concatenates the
tensors (`torch.cat` / `torch.stack`) instead.

Sources (rewritten in our own words, structure kept):
* https://github.com/laekov/fastmoe/issues/49 - `fmoe/megatron/balance.py`: a helper walks
  the layers' gates, gathers their losses, builds `torch.tensor(loss_list)` and sums it.
* https://github.com/lululxvi/deepxde/pull/1318 - `torch.as_tensor` of a tuple of tensors
  loses the gradient, `torch.stack` keeps it.
"""

import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self, dim: int = 4, experts: int = 3) -> None:
        super().__init__()
        self.w = nn.Linear(dim, experts)
        self.loss = None

    def forward(self, x):
        scores = torch.softmax(self.w(x), dim=-1)
        self.loss = scores.mean(dim=0).pow(2).sum() * scores.size(-1)
        return scores


class MoeLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gate = Gate()
        self.experts = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))

    def forward(self, x):
        scores = self.gate(x)
        outs = torch.stack([expert(x) for expert in self.experts], dim=-1)
        return (outs * scores.unsqueeze(1)).sum(dim=-1)


def collect_balance_loss(layers):
    loss_list = [layer.gate.loss for layer in layers]
    return torch.tensor(loss_list).sum()  # missed: GG105


def collect_balance_loss_fixed(layers):
    loss_list = [layer.gate.loss for layer in layers]
    return torch.stack(loss_list).sum()


def step_with_balance(layers, x, target, coefficient=0.01):
    out = x
    for layer in layers:
        out = layer(out)
    lm_loss = ((out - target) ** 2).mean()
    loss = lm_loss + coefficient * collect_balance_loss(layers)
    loss.backward()


def balance_only(layers, x):
    out = x
    for layer in layers:
        out = layer(out)
    gate_losses = [layer.gate.loss for layer in layers]
    balance = torch.tensor(gate_losses).sum()  # expect: GG105
    balance.backward()


def balance_only_stacked(layers, x):
    out = x
    for layer in layers:
        out = layer(out)
    gate_losses = [layer.gate.loss for layer in layers]
    balance = torch.stack(gate_losses).sum()
    balance.backward()


def pair_loss(a_loss, b_loss):
    """deepxde#1318: as_tensor of a tuple of losses, then backward."""
    total = torch.as_tensor((a_loss, b_loss)).sum()  # expect: GG105
    total.backward()


def pair_loss_stacked(a_loss, b_loss):
    total = torch.stack((a_loss, b_loss)).sum()
    total.backward()


moe = nn.ModuleList(MoeLayer() for _ in range(2))
x, y = torch.randn(5, 4), torch.randn(5, 4)
step_with_balance(moe, x, y)
assert moe[0].gate.w.weight.grad is not None
moe.zero_grad()
out = moe[1](moe[0](x))
assert not collect_balance_loss(moe).requires_grad
assert collect_balance_loss_fixed(moe).requires_grad
try:
    balance_only(moe, x)
except RuntimeError as error:
    assert "does not require grad" in str(error)
balance_only_stacked(moe, x)
p = torch.ones(2, requires_grad=True)
try:
    pair_loss((p * 2).sum(), (p * 3).sum())
except RuntimeError as error:
    assert "does not require grad" in str(error)
pair_loss_stacked((p * 2).sum(), (p * 3).sum())
