"""Training loops that call a callback or an overridable hook after backward() (GG601).

A loop that hands the model to code it cannot see might clear the gradients there, so it is
left alone. When that code is in view it is read like any helper: a callback every caller
passes (`fit(..., after_backward=log_norms)`) and a hook method with an override
(`self.after_backward()` defined by the base trainer and by a subclass) clear nothing here,
so these loops apply the sum of all gradients so far (checked with torch 2.13.0 below: the
gradient the second step applies is the first batch's plus the second's). The look-alikes
clear in the callback or in one of the overrides, which counts.

Modelled on the callback-style trainers of the team's blind corpus (a recorder passed as
`on_after_backward`, a subclass overriding a logging hook).
"""

import torch
from torch import nn


def log_norms(model, history):
    history.append(sum(p.grad.norm().item() for p in model.parameters()))


def clear_norms(model, history):
    history.append(sum(p.grad.norm().item() for p in model.parameters()))
    model.zero_grad()


def fit(model, batches, optimizer, after_backward, history):
    applied = []
    for x, y in batches:  # expect: GG601
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        after_backward(model, history)
        applied.append(model.weight.grad.clone())
        optimizer.step()
    return applied


def fit_clearing_in_callback(model, batches, optimizer, after_backward, history):
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        after_backward(model, history)


class Trainer:
    def __init__(self, lr=0.0):
        self.model = nn.Linear(3, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr)
        self.norms = []

    def after_backward(self):
        self.norms.append(self.model.weight.grad.norm().item())

    def epoch(self, batches):
        applied = []
        for x, y in batches:  # expect: GG601
            loss = nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.after_backward()
            applied.append(self.model.weight.grad.clone())
            self.optimizer.step()
        return applied


class VerboseTrainer(Trainer):
    def after_backward(self):
        print(f"grad norm {self.model.weight.grad.norm().item():.3f}")


class ClearingTrainer:
    def __init__(self):
        self.model = nn.Linear(3, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def after_step(self):
        pass

    def epoch(self, batches):
        for x, y in batches:
            loss = nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            self.after_step()


class ResettingTrainer(ClearingTrainer):
    def after_step(self):
        self.optimizer.zero_grad()


def main():
    torch.manual_seed(0)
    batches = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(2)]
    model = nn.Linear(3, 1)
    applied = fit(model, batches, torch.optim.SGD(model.parameters(), lr=0.0), log_norms, [])
    fresh = nn.Linear(3, 1)
    fresh.load_state_dict(model.state_dict())
    nn.functional.mse_loss(fresh(batches[1][0]), batches[1][1]).backward()
    assert torch.allclose(applied[1], applied[0] + fresh.weight.grad, atol=1e-6)

    model = nn.Linear(3, 1)
    fit_clearing_in_callback(
        model, batches, torch.optim.SGD(model.parameters(), lr=0.1), clear_norms, []
    )
    assert all(p.grad is None for p in model.parameters())

    trainer = VerboseTrainer()
    applied = trainer.epoch(batches)
    fresh = nn.Linear(3, 1)
    fresh.load_state_dict(trainer.model.state_dict())
    nn.functional.mse_loss(fresh(batches[1][0]), batches[1][1]).backward()
    assert torch.allclose(applied[1], applied[0] + fresh.weight.grad, atol=1e-6)
    Trainer().epoch(batches)
    resetting = ResettingTrainer()
    resetting.epoch(batches)
    assert all(p.grad is None for p in resetting.model.parameters())


if __name__ == "__main__":
    main()
