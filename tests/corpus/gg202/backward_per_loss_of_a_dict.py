"""A multi-task step that backpropagates each loss of a dict in turn.

The two heads share the encoder, so both losses run through the graph of one forward pass;
`for name, loss in losses.items(): loss.backward()` frees that graph in the first iteration
and the second raises "Trying to backward through the graph a second time" (checked with
torch 2.13.0). Summing the losses first, or keeping the graph for all but the last backward,
is fine. Found by a blind corpus a helper wrote for the team (a multi-task trainer).
"""

import torch
import torch.nn.functional as F
from torch import nn


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
        self.cls = nn.Linear(8, 3)
        self.reg = nn.Linear(8, 1)

    def forward(self, x):
        feats = self.encoder(x)
        return {"logits": self.cls(feats), "value": self.reg(feats).squeeze(-1)}


def losses_of(outputs, labels, targets):
    return {
        "cls": F.cross_entropy(outputs["logits"], labels),
        "reg": 0.5 * F.mse_loss(outputs["value"], targets),
    }


def step_each(model, optimizer, x, labels, targets):
    optimizer.zero_grad()
    losses = losses_of(model(x), labels, targets)
    for name, loss in losses.items():
        loss.backward()  # expect: GG202
    optimizer.step()


def step_summed(model, optimizer, x, labels, targets):
    optimizer.zero_grad()
    losses = losses_of(model(x), labels, targets)
    sum(losses.values()).backward()
    optimizer.step()


def step_each_retained(model, optimizer, x, labels, targets):
    optimizer.zero_grad()
    losses = losses_of(model(x), labels, targets)
    for loss in losses.values():
        loss.backward(retain_graph=True)
    optimizer.step()


if __name__ == "__main__":
    net = TwoHeads()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x, labels, targets = torch.randn(4, 6), torch.randint(0, 3, (4,)), torch.randn(4)
    try:
        step_each(net, opt, x, labels, targets)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second backward to fail")
    step_summed(net, opt, x, labels, targets)
    step_each_retained(net, opt, x, labels, targets)
