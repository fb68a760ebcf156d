"""The loss is turned into a Python number before it is backpropagated (GG102)."""

import torch
import torch.nn.functional as F
from torch import nn

model = nn.Linear(10, 3)
criterion = nn.CrossEntropyLoss()
mse = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def batch():
    return torch.randn(8, 10), torch.randint(0, 3, (8,))


def item_on_the_criterion():
    x, y = torch.randn(8, 10), torch.randint(0, 3, (8,))
    optimizer.zero_grad()
    loss = criterion(model(x), y).item()  # expect: GG102
    loss.backward()
    optimizer.step()


def item_rebinds_the_loss():
    x = torch.randn(8, 10)
    y = torch.randint(0, 3, (8,))
    loss = criterion(model(x), y)
    loss = loss.item()  # expect: GG102
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def float_of_anything(loss_fn, inputs, targets):
    """`float(...)` is a Python float whatever `loss_fn` returns."""
    loss = float(loss_fn(model(inputs), targets))  # expect: GG102
    loss.backward()


def tolist_of_scalar_loss():
    x = torch.randn(8, 10)
    target = torch.randn(8, 3)
    loss = F.mse_loss(model(x), target).tolist()  # expect: GG102
    loss.backward()


def numpy_for_logging_too_early():
    x = torch.randn(8, 10)
    target = torch.randn(8, 3)
    loss = mse(model(x), target).detach().numpy()  # expect: GG102
    loss.backward()


def rewrapped_number():
    """Runs without an error, but the new leaf has no history: the model gets no gradient."""
    x = torch.randn(8, 10)
    y = torch.randint(0, 3, (8,))
    loss = criterion(model(x), y)
    loss = torch.tensor(loss.item(), requires_grad=True)  # expect: GG102
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def rewrapped_in_one_line():
    x = torch.randn(8, 10)
    y = torch.randint(0, 3, (8,))
    loss = torch.tensor(criterion(model(x), y).item(), requires_grad=True)  # expect: GG102
    loss.backward()


def functional_backward_on_float():
    x = torch.randn(8, 10)
    y = torch.randint(0, 3, (8,))
    loss = criterion(model(x), y).item()  # expect: GG102
    torch.autograd.backward(loss)


class Trainer:
    def __init__(self):
        self.model = nn.Linear(10, 3)
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.model.parameters())

    def step(self):
        x, y = torch.randn(8, 10), torch.randint(0, 3, (8,))
        loss = self.criterion(self.model(x), y).item()  # expect: GG102
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss


for epoch in range(2):
    inputs = torch.randn(8, 10)
    labels = torch.randint(0, 3, (8,))
    loss = criterion(model(inputs), labels).item()  # expect: GG102
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: {loss:.3f}")
