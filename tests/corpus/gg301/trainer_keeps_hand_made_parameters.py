"""A from-scratch trainer that keeps a dict of hand-made parameters and updates them in
place outside `torch.no_grad()`.

`init_params()` builds the weights as leaves that require grad; the trainer is given that
dict and its `sgd_update` does `p -= lr * grad` for each of them, which raises "a leaf
Variable that requires grad is being used in an in-place operation" (checked with torch
2.13.0). Doing the update under `torch.no_grad()` is the fix. Found by a blind corpus a
helper wrote for the team (a manual-SGD MLP trainer).
"""

import torch
import torch.nn.functional as F


def init_params(d_in, d_out):
    return {
        "w": (torch.randn(d_in, d_out) * 0.1).requires_grad_(),
        "b": torch.zeros(d_out, requires_grad=True),
    }


class Trainer:
    def __init__(self, params, lr=0.1):
        self.params = params
        self.lr = lr

    def step(self, x, y):
        p = self.params
        loss = F.cross_entropy(x @ p["w"] + p["b"], y)
        loss.backward()
        for name, param in self.params.items():
            param -= self.lr * param.grad  # expect: GG301
            param.grad = None


class CarefulTrainer:
    def __init__(self, params, lr=0.1):
        self.params = params
        self.lr = lr

    def step(self, x, y):
        p = self.params
        loss = F.cross_entropy(x @ p["w"] + p["b"], y)
        loss.backward()
        with torch.no_grad():
            for name, param in self.params.items():
                param -= self.lr * param.grad
                param.grad = None


if __name__ == "__main__":
    x, y = torch.randn(8, 5), torch.randint(0, 3, (8,))
    try:
        Trainer(init_params(5, 3)).step(x, y)
    except RuntimeError as error:
        assert "leaf Variable that requires grad" in str(error)
    else:
        raise AssertionError("expected the in-place update to fail")
    CarefulTrainer(init_params(5, 3)).step(x, y)
