"""Look-alikes of a module-level `torch.set_grad_enabled(False)` reaching a training loop
(see grad_switched_off_at_import_down_a_call_chain.py), none reported (GG101): the entry
point switches recording back on before it trains (and leaves it on for what runs after it),
functions no code of the file calls, and a loop whose mode is decided per phase. A careless version of "callees learn their callers'
grad mode" (every function starting in the module's mode, a mode decided by a variable
taken for off, or the module's mode taken to hold after `main()` switched it back on) would
report them.
"""

import torch
from torch import nn

# Loading the landmark detector: no gradients needed for that.
torch.set_grad_enabled(False)
detector = nn.Linear(8, 4)


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.data = [torch.randn(4, 8) for _ in range(2)]

    def train_epoch(self):
        for x in self.data:
            loss = self.model(x).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    def fit(self):
        for _ in range(2):
            self.train_epoch()


def phase_step(model, x, phase):
    loss = model(x).pow(2).mean()
    if phase == "train":
        loss.backward()
    return loss.item()


def run_phases():
    model = nn.Linear(8, 1)
    for phase in ("train", "val"):
        with torch.set_grad_enabled(phase == "train"):
            phase_step(model, torch.randn(4, 8), phase)


def tune():
    # Run after `main()`, which left recording on.
    loss = nn.Linear(8, 1)(torch.randn(4, 8)).sum()
    loss.backward()


def fine_tune_epoch():
    loss = nn.Linear(8, 1)(torch.randn(4, 8)).sum()
    loss.backward()


def fine_tune():
    # Nothing in this file calls it: a caller elsewhere may run it with recording on.
    fine_tune_epoch()


def main():
    torch.set_grad_enabled(True)  # training needs graphs again
    Trainer(nn.Linear(8, 1)).fit()
    run_phases()


if __name__ == "__main__":
    main()
    tune()
