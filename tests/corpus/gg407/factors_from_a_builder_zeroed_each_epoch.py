"""Matrix factorisation whose factors come from a builder, zeroed at the top of each epoch
(GG407).

Recommender tutorials written without `torch.optim` often keep the learnable tensors in a
container a small builder returns (`factors = make_factors(...)`) and clear every gradient
at the start of the epoch loop, as the optimizer's `zero_grad()` would. Each call of the
builder makes new leaves in a container written out with its elements, so the inner loop
surely runs on the first epoch, before any backward, and `.grad` is still None there:
AttributeError: 'NoneType' object has no attribute 'zero_'.

The look-alikes clear the gradients after the update, test them first, or walk factors a
builder warmed up with one backward before handing them back: they run.
"""

import torch

torch.manual_seed(0)


def make_factors(n_users, n_items, rank):
    users = (0.1 * torch.randn(n_users, rank)).requires_grad_()
    items = (0.1 * torch.randn(n_items, rank)).requires_grad_()
    return {"users": users, "items": items}


def make_warm_factors(n_users, n_items, rank):
    users = torch.zeros(n_users, rank, requires_grad=True)
    items = torch.zeros(n_items, rank, requires_grad=True)
    (users.sum() + items.sum()).backward()
    return [users, items]


def predict(factors, rows, cols):
    return (factors["users"][rows] * factors["items"][cols]).sum(-1)


def factorise(rows, cols, ratings, rank=4, epochs=10, lr=0.05):
    factors = make_factors(int(rows.max()) + 1, int(cols.max()) + 1, rank)
    for epoch in range(epochs):
        for tensor in factors.values():
            tensor.grad.zero_()  # expect: GG407
        loss = ((predict(factors, rows, cols) - ratings) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for tensor in factors.values():
                tensor -= lr * tensor.grad
    return factors


def factorise_clearing_after(rows, cols, ratings, rank=4, epochs=10, lr=0.05):
    factors = make_factors(int(rows.max()) + 1, int(cols.max()) + 1, rank)
    for epoch in range(epochs):
        loss = ((predict(factors, rows, cols) - ratings) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for tensor in factors.values():
                tensor -= lr * tensor.grad
                tensor.grad.zero_()
    return factors


def factorise_guarded(rows, cols, ratings, rank=4, epochs=10, lr=0.05):
    factors = make_factors(int(rows.max()) + 1, int(cols.max()) + 1, rank)
    for epoch in range(epochs):
        for tensor in factors.values():
            if tensor.grad is not None:
                tensor.grad.zero_()
        loss = ((predict(factors, rows, cols) - ratings) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for tensor in factors.values():
                tensor -= lr * tensor.grad
    return factors


def factorise_warm(rows, cols, ratings, rank=4, epochs=10, lr=0.05):
    factors = make_warm_factors(int(rows.max()) + 1, int(cols.max()) + 1, rank)
    for epoch in range(epochs):
        for tensor in factors:
            tensor.grad.zero_()
        users, items = factors
        loss = (((users[rows] * items[cols]).sum(-1) - ratings) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for tensor in factors:
                tensor -= lr * tensor.grad
    return factors


if __name__ == "__main__":
    r = torch.randint(0, 5, (40,))
    c = torch.randint(0, 6, (40,))
    y = torch.rand(40) * 5
    factorise_clearing_after(r, c, y)
    factorise_guarded(r, c, y)
    factorise_warm(r, c, y)
    try:
        factorise(r, c, y)
    except AttributeError as error:
        print("fails as expected:", error)
