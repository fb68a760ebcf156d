"""A multi-task loop weights its task losses in a helper that re-wraps them (GG105).

`combine(losses, weights)` builds `torch.tensor([losses["cls"], losses["reg"]])`: a new
tensor holding the losses' values without their history, multiplied by task weights that
were themselves made with `torch.tensor(config["weights"])`. Both have no history, but only
the first cut one: the finding points at the re-wrap of the losses, not at the weights, and
`loss.backward()` raises "element 0 of tensors does not require grad" (checked with torch
2.13.0 below). The look-alike stacks the losses, which keeps their graph.

Modelled on a multi-task regression/classification trainer of the team's second blind
corpus (task weights from a config dict, losses combined in a helper).
"""

import torch
from torch import nn

CONFIG = {"weights": [1.0, 0.5], "steps": 2}


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(6, 8)
        self.cls = nn.Linear(8, 3)
        self.reg = nn.Linear(8, 1)

    def forward(self, x):
        h = torch.relu(self.trunk(x))
        return {"cls": self.cls(h), "reg": self.reg(h).squeeze(-1)}


def task_losses(outputs, y_cls, y_reg):
    return {
        "cls": nn.functional.cross_entropy(outputs["cls"], y_cls),
        "reg": nn.functional.mse_loss(outputs["reg"], y_reg),
    }


def combine(losses, weights):
    stacked = torch.tensor([losses["cls"], losses["reg"]])  # expect: GG105
    return (weights * stacked).sum()


def combine_stacked(losses, weights):
    stacked = torch.stack([losses["cls"], losses["reg"]])
    return (weights * stacked).sum()


def train(model, optimizer, weights, combiner):
    for _ in range(CONFIG["steps"]):
        x, y_cls, y_reg = torch.randn(4, 6), torch.randint(0, 3, (4,)), torch.randn(4)
        loss = combiner(task_losses(model(x), y_cls, y_reg), weights)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main():
    model = TwoHeads()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    weights = torch.tensor(CONFIG["weights"])
    x, y_cls, y_reg = torch.randn(4, 6), torch.randint(0, 3, (4,)), torch.randn(4)
    loss = combine(task_losses(model(x), y_cls, y_reg), weights)
    try:
        loss.backward()
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected the re-wrapped losses to fail")
    kept = combine_stacked(task_losses(model(x), y_cls, y_reg), weights)
    optimizer.zero_grad()
    kept.backward()
    optimizer.step()


if __name__ == "__main__":
    main()
