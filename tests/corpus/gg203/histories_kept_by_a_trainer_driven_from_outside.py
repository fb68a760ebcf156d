"""GG203: a trainer object keeps a list of its step losses, and the loop that drives it is
outside the class: in the script's main function or at module level.

`self.losses = []` is built once in `__init__`; `step()` backpropagates and then appends the
loss tensor itself. The loop calling `trainer.step(...)` on every batch sits in `main()` (or
in the module body), on a name bound once to `StepTrainer(...)`, so every batch's graph is
kept for as long as the trainer lives. The same holds whether the loop is inside the class
or not; what matters is that the name certainly holds an instance of the class.

Look-alikes that stay silent: the name may hold something else (bound twice, or by a
factory the analysis does not follow), the call is in a branch of the loop, the loop may
`continue` before the call, the class's name is rebound in the function, and a trainer that
keeps `.item()` numbers.
"""

import torch
from torch import nn


class StepTrainer:
    def __init__(self, model, lr=0.1):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)
        self.losses = []

    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.losses.append(loss)  # expect: GG203


class NumberTrainer:
    def __init__(self, model, lr=0.1):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)
        self.numbers = []

    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.numbers.append(loss.item())


def batches(n):
    for _ in range(n):
        yield torch.randn(16, 4), torch.randn(16, 1)


def main():
    trainer = StepTrainer(nn.Linear(4, 1))
    for x, y in batches(100):
        trainer.step(x, y)
    counter = NumberTrainer(nn.Linear(4, 1))
    for x, y in batches(100):
        counter.step(x, y)
    print(len(trainer.losses), counter.numbers[-1])


if __name__ == "__main__":
    main()
