"""Helpers reading `.grad` that look like GG407 but are fine, or that the analysis cannot
be sure of: the helper runs after the first backward, checks `p.grad is not None`, is
given a model trained before (by the caller or by the helper that built it), or is
`optimizer.zero_grad()`.

Look-alikes of the reset_grad() helper of wiseodd/generative-models#26:
https://github.com/wiseodd/generative-models/issues/26
"""

import torch
from torch import nn

torch.manual_seed(0)


def reset_after(model):
    for p in model.parameters():
        p.grad.zero_()


def fit_reset_after_update(model, batches):
    for inputs, targets in batches:
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.05 * p.grad
        reset_after(model)


def reset_guarded(model):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()


def fit_guarded(model, batches):
    for inputs, targets in batches:
        reset_guarded(model)
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.05 * p.grad


def reset_trained(model):
    for p in model.parameters():
        p.grad.zero_()


def fit_trained(model, batches):
    for inputs, targets in batches:
        reset_trained(model)
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()


def reset_loaded(model):
    for p in model.parameters():
        p.grad.zero_()


def fit_loaded(model, batches):
    for inputs, targets in batches:
        reset_loaded(model)
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()


def warmed_up(batches):
    model = nn.Linear(4, 1)
    nn.functional.mse_loss(model(batches[0][0]), batches[0][1]).backward()
    return model


def fit_with_optimizer(model, optimizer, batches):
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()


def clear_weight(weight):
    weight.grad.zero_()


def fit_weight(weight, x, y):
    for step in range(3):
        loss = ((x @ weight - y) ** 2).mean()
        loss.backward()
        weight.data -= 0.1 * weight.grad
        clear_weight(weight)


def main():
    batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
    fit_reset_after_update(nn.Linear(4, 1), batches)
    model = nn.Linear(4, 1)
    fit_guarded(model, batches)

    # Trained once before the loop: every parameter has a gradient already.
    pretrained = nn.Linear(4, 1)
    nn.functional.mse_loss(pretrained(batches[0][0]), batches[0][1]).backward()
    fit_trained(pretrained, batches)

    # Built and warmed up by a helper: its parameters have gradients when the loop starts.
    fit_loaded(warmed_up(batches), batches)
    warm = warmed_up(batches)
    fit_loaded(warm, batches)

    net = nn.Linear(4, 1)
    fit_with_optimizer(net, torch.optim.SGD(net.parameters(), lr=0.1), batches)

    x = torch.randn(16, 3)
    weight = torch.zeros(3, requires_grad=True)
    fit_weight(weight, x, x.sum(dim=1))


if __name__ == "__main__":
    main()
