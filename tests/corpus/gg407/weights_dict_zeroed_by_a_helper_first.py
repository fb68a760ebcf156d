"""A dict of hand-made weights zeroed by a helper at the top of the loop (GG407).

`make_weights()` returns a dict written out with two fresh leaves. `train` hands it to
`clear_grads` before anything ran backward, and the helper's loop reaches the first weight
with `.grad` still None: "AttributeError: 'NoneType' object has no attribute 'zero_'"
(checked with torch 2.13.0 below). A loop over a container fails on its first element, so
the other weights do not matter.

Look-alikes: a helper that skips a missing gradient with `continue` before zeroing it, and a
loop over a list written out right there that zeroes after the backward.

Modelled on jcjohnson/pytorch-examples#7 (hand-written weights zeroed before the first
backward) and wiseodd/generative-models#26 (a `reset_grad()` helper walking a parameter
list before any backward had run).
"""

import torch


def make_weights():
    first = torch.randn(3, 5, requires_grad=True)
    second = torch.randn(5, 1, requires_grad=True)
    return {"first": first, "second": second}


def clear_grads(weights):
    for weight in weights.values():
        weight.grad.zero_()  # expect: GG407


def clear_existing_grads(weights):
    for weight in weights.values():
        if weight.grad is None:
            continue
        weight.grad.zero_()


def train(x, y, weights, steps):
    for _ in range(steps):
        clear_grads(weights)
        loss = (x.mm(weights["first"]).relu().mm(weights["second"]) - y).pow(2).mean()
        loss.backward()


def train_guarded(x, y, weights, steps):
    for _ in range(steps):
        clear_existing_grads(weights)
        loss = (x.mm(weights["first"]).relu().mm(weights["second"]) - y).pow(2).mean()
        loss.backward()


def train_listed(x, y, steps):
    first = torch.randn(3, 5, requires_grad=True)
    second = torch.randn(5, 1, requires_grad=True)
    for _ in range(steps):
        loss = (x.mm(first).relu().mm(second) - y).pow(2).mean()
        loss.backward()
        with torch.no_grad():
            for weight in [first, second]:
                weight -= 0.01 * weight.grad
                weight.grad.zero_()


def run():
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    weights = make_weights()
    train(x, y, weights, 2)


def run_look_alikes():
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    weights = make_weights()
    train_guarded(x, y, weights, 2)
    train_listed(x, y, 2)


def main():
    for case in (run,):
        try:
            case()
        except AttributeError as error:
            assert "'NoneType' object has no attribute 'zero_'" in str(error)
        else:
            raise AssertionError("expected the first weight's missing gradient to fail")
    run_look_alikes()


if __name__ == "__main__":
    main()
