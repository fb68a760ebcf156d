"""A value cut by `.detach()` and then cast or moved is still cut (GG103).

`t.detach().to(torch.float32)`, `.to(dtype=torch.float64)`, `.type_as(ref)` or
`.to(ref)` give a copy with the history of what they are called on and nothing else: a
dtype or a device has none, and a tensor given as the argument only lends its dtype and
device. So after a `.detach()` the cast copy is still cut, and a loss computed from it alone
raises "element 0 of tensors does not require grad and does not have a grad_fn" at
backward.

The other direction confused the author of
https://github.com/hiyouga/LlamaFactory/issues/6675, who suspected that
`hidden_states.to(torch.float32)` broke the gradient of a normalisation layer: a cast of a
tensor with history keeps it. The look-alikes below are those casts without a detach, a
detached cast kept for logging only, a module moved with `.to(torch.device(...))` and
`.to(torch.float32)`, and a tensor with history cast to the dtype of another tensor.
"""

import torch
import torch.nn.functional as F
from torch import nn


def to_log_friendly(outputs):
    """Every output as a float32 copy, "safe to keep around"."""
    return {k: v.detach().to(torch.float32) for k, v in outputs.items()}  # expect: GG103


def train_on_collected(model, loader, optimizer):
    for x, y in loader:
        out = to_log_friendly(model(x))
        loss = F.mse_loss(out["pred"], y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_on_double_copy(model, loader, optimizer):
    for x, y in loader:
        pred = model(x)
        pred64 = pred.detach().to(dtype=torch.float64)  # expect: GG103
        loss = F.mse_loss(pred64, y.double())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_matching_dtype(model, loader, optimizer, reference):
    for x, y in loader:
        pred = model(x).detach().type_as(reference)  # expect: GG103
        loss = F.mse_loss(pred, y.to(reference))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


class DictModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 1)

    def forward(self, x):
        return {"pred": self.body(x)}


class Float32Norm(nn.Module):
    """The layer of the report: the cast to float32 keeps the history."""

    def __init__(self, size):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))

    def forward(self, hidden):
        kept = hidden.dtype
        hidden = hidden.to(torch.float32)
        hidden = hidden * torch.rsqrt(hidden.pow(2).mean(-1, keepdim=True) + 1e-6)
        return self.weight * hidden.to(kept)


def train_norm(norm, inputs, optimizer):
    out = norm(inputs.to(torch.bfloat16))
    loss = out.float().pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def train_logging_a_copy(model, loader, optimizer, history):
    for x, y in loader:
        pred = model(x)
        history.append(pred.detach().to(torch.float32).mean())
        loss = F.mse_loss(pred.to(torch.float32), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_moved_module(model, loader, optimizer):
    model = model.to(torch.device("cpu")).to(torch.float32)
    for x, y in loader:
        loss = F.mse_loss(model(x.to(torch.device("cpu"))), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_cast_like(model, loader, optimizer):
    reference = torch.zeros(1, dtype=torch.float64)
    for x, y in loader:
        pred = model(x).to(reference)
        loss = F.mse_loss(pred, y.to(reference))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def _raises_no_grad_fn(run) -> None:
    try:
        run()
    except RuntimeError as error:
        assert "does not require grad and does not have a grad_fn" in str(error)
    else:
        raise AssertionError("backward should raise")


if __name__ == "__main__":
    data = [(torch.randn(8, 4), torch.randn(8, 1))]
    linear = nn.Linear(4, 1)
    opt = torch.optim.SGD(linear.parameters(), lr=0.1)
    dict_model = DictModel()
    dict_opt = torch.optim.SGD(dict_model.parameters(), lr=0.1)
    _raises_no_grad_fn(lambda: train_on_collected(dict_model, data, dict_opt))
    _raises_no_grad_fn(lambda: train_on_double_copy(linear, data, opt))
    _raises_no_grad_fn(lambda: train_matching_dtype(linear, data, opt, torch.zeros(1)))
    norm = Float32Norm(4)
    norm_opt = torch.optim.SGD(norm.parameters(), lr=0.1)
    train_norm(norm, torch.randn(8, 4), norm_opt)
    assert norm.weight.grad is not None
    train_logging_a_copy(linear, data, opt, [])
    train_moved_module(linear, data, opt)
    fresh = nn.Linear(4, 1)
    train_cast_like(fresh, data, torch.optim.SGD(fresh.parameters(), lr=0.1))
    assert fresh.weight.grad is not None
