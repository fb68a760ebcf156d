"""Per-sample losses and raw model outputs backpropagated without a reduction (GG501).

Each function raises "grad can be implicitly created only for scalar outputs" when run.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


def weighted_regression():
    # The per-sample weights were meant to be applied, but the sum was forgotten.
    model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 3))
    criterion = nn.MSELoss(reduction="none")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(3):
        x, y = torch.randn(16, 6), torch.randn(16, 3)
        per_sample = criterion(model(x), y)
        optimizer.zero_grad()
        per_sample.backward()  # expect: GG501
        optimizer.step()


def output_as_loss():
    # The criterion was never applied: the model's output itself is backpropagated.
    net = nn.Linear(10, 2)
    out = net(torch.randn(4, 10))
    out.backward()  # expect: GG501


def functional_none_reduction(logits_model: nn.Module):
    head = nn.Linear(8, 5)
    features = torch.randn(12, 8)
    target = torch.randn(12, 5)
    loss = F.smooth_l1_loss(head(features), target, reduction="none")
    loss = loss * 0.5
    loss.backward()  # expect: GG501


def derivative_of_a_curve():
    # d/dx of sin(x) * x on a grid: autograd.grad needs grad_outputs for a vector output.
    x = torch.linspace(-3.0, 3.0, 100, requires_grad=True)
    y = torch.sin(x) * x
    (dy_dx,) = torch.autograd.grad(y, x)  # expect: GG501
    return dy_dx


def leaf_vector():
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    residual = (w - 1.0) ** 2
    torch.autograd.backward(residual)  # expect: GG501


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(20, 64)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


def logits_backward(loader):
    model = Classifier()
    for images, labels in loader:
        logits = model(images)
        logits.backward()  # expect: GG501


if __name__ == "__main__":
    for case in (weighted_regression, output_as_loss, derivative_of_a_curve, leaf_vector):
        try:
            case()
        except RuntimeError as error:
            print(case.__name__, "->", error)
