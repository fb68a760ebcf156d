"""`.grad` reads that resemble GG407 but are fine, or that the analysis cannot be sure of."""

import torch
from torch import nn

torch.manual_seed(0)
lr = 0.05


def zero_after_update(x, y):
    w = torch.randn(3, 1, requires_grad=True)
    for epoch in range(10):
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
        w.grad.zero_()


def guarded(x, y):
    w = torch.randn(3, 1, requires_grad=True)
    for epoch in range(10):
        if w.grad is not None:
            w.grad.zero_()
        norm = w.grad.norm() if w.grad is not None else 0.0
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        print(norm)


def set_to_none_and_inspection():
    w = torch.randn(4, requires_grad=True)
    w.grad = None
    print(w.grad)
    assert w.grad is None
    has_grad = w.grad is not None
    (w * 2).sum().backward()
    return has_grad


def only_from_the_second_iteration(x, y):
    w = torch.randn(3, 1, requires_grad=True)
    for step in range(10):
        if step > 0:
            w.grad.zero_()  # earlier iterations ran backward: fine
        ((x @ w - y) ** 2).mean().backward()


def helper_may_run_backward(train_step, model: nn.Module):
    w = torch.randn(3, requires_grad=True)
    train_step(w)
    w.grad.zero_()
    for p in model.parameters():  # a module from the caller: grads may exist
        p.grad.zero_()


def accumulate(w, x):
    (w * x).sum().backward()


def local_helper_runs_backward():
    w = torch.randn(3, requires_grad=True)
    accumulate(w, torch.ones(3))
    with torch.no_grad():
        w -= lr * w.grad


def closure_step():
    w = torch.randn(3, requires_grad=True)
    optimizer = torch.optim.LBFGS([w])

    def closure():
        optimizer.zero_grad()
        loss = (w**2).sum()
        loss.backward()
        return loss

    optimizer.step(closure)
    print(w.grad.norm())


def tolerated_attribute_error():
    w = torch.randn(3, requires_grad=True)
    try:
        w.grad.zero_()
    except AttributeError:
        pass


def fresh_grad_assigned_through_alias():
    w = torch.randn(3, requires_grad=True)
    for p in [w]:
        p.grad = torch.zeros_like(p)
    w.grad.zero_()


def not_a_leaf_that_requires_grad():
    v = torch.randn(3)
    print(v.grad)
    u = torch.randn(3, requires_grad=True) * 2
    u.retain_grad()
    u.sum().backward()
    u.grad.zero_()


if __name__ == "__main__":
    x = torch.randn(8, 3)
    y = x.sum(dim=1, keepdim=True)
    zero_after_update(x, y)
    guarded(x, y)
    set_to_none_and_inspection()
    only_from_the_second_iteration(x, y)
    trained = nn.Linear(2, 1)
    trained(torch.ones(1, 2)).sum().backward()
    helper_may_run_backward(lambda t: (t * 2).sum().backward(), trained)
    local_helper_runs_backward()
    closure_step()
    tolerated_attribute_error()
    fresh_grad_assigned_through_alias()
    not_a_leaf_that_requires_grad()
    print("ok")
