"""A hand-written gradient step whose weights are rebound to a computed tensor on the last
step only: no GG403 on the `.grad` reads.

The look-alike of tests/corpus/mixed/manual_update_rebinds_leaf.py, with the in-place
update under no_grad that https://github.com/jcjohnson/pytorch-examples/pull/4 discusses
for a hand-written two-layer net: there every iteration rebinds `w` to `w - lr * w.grad`,
so from the second
iteration on `w` is a non-leaf whose `.grad` is None. Here the loop updates in place under
`torch.no_grad()` and rebinds `w` to a rescaled tensor only on its last step, after which
no `.grad` is read. At the top of an iteration `w` requires grad and is a leaf on every
iteration that reads it, so the reads are fine.
"""

import torch


def fit_scale(xs, ys, steps=5, lr=0.1, final_scale=2.0):
    w = torch.ones(1, requires_grad=True)
    for step in range(steps):
        loss = ((w * xs - ys) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
        w.grad.zero_()
        if step == steps - 1:
            w = w * final_scale
    return w


xs = torch.linspace(0, 1, 8)
print(fit_scale(xs, 3 * xs))
