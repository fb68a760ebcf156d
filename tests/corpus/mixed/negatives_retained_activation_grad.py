"""The fixed form of reading an activation's gradient: `retain_grad()` before backward().

Companion of manual_training_leaf_mistakes.py (GG403 stays silent in a whole file that calls
`retain_grad()`, because the call may be on an alias of the tensor read).
"""

import torch


def hidden_activation_grad_retained(x):
    w = torch.randn(3, 1, requires_grad=True)
    hidden = x @ w
    hidden.retain_grad()
    hidden.relu().sum().backward()
    return hidden.grad
