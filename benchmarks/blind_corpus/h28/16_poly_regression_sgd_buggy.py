"""Polynomial regression with a hand-written SGD update (pytorch/examples style).

Modelled on: https://github.com/pytorch/examples/pull/781

The regression example in pytorch/examples fits a degree-4 polynomial with an
nn.Linear and updates its parameters by hand.  After the Variable/Tensor
merge the update was written as `param.add_(-lr * param.grad)`, an in-place
operation on a leaf tensor that requires grad, done while autograd is
recording; it raises "a leaf Variable that requires grad is being used in an
in-place operation".  The PR (following #779 for word_language_model) fixed
the update line in regression/main.py.
"""
from itertools import count

import torch
import torch.nn.functional as F

torch.set_num_threads(1)

POLY_DEGREE = 4
W_target = torch.randn(POLY_DEGREE, 1) * 5
b_target = torch.randn(1) * 5


def make_features(x):
    """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def f(x):
    """Approximated function."""
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    result = "y = "
    for i, w in enumerate(W):
        result += "{:+.2f} x^{} ".format(w, i + 1)
    result += "{:+.2f}".format(b[0])
    return result


def get_batch(batch_size=32):
    random = torch.randn(batch_size)
    x = make_features(random)
    y = f(x)
    return x, y


def train(fc, lr=0.1, max_steps=50):
    loss = float("inf")
    for batch_idx in count(1):
        batch_x, batch_y = get_batch()
        fc.zero_grad()
        output = F.smooth_l1_loss(fc(batch_x), batch_y)
        loss = output.item()
        output.backward()
        for param in fc.parameters():
            param.add_(-lr * param.grad)  # bug: GG301
        if loss < 1e-3 or batch_idx >= max_steps:
            break
    return batch_idx, loss


if __name__ == "__main__":
    torch.manual_seed(0)
    fc = torch.nn.Linear(W_target.size(0), 1)
    try:
        steps, loss = train(fc)
        print("Loss: {:.6f} after {} batches".format(loss, steps))
        print("==> Learned function:\t" + poly_desc(fc.weight.view(-1), fc.bias))
    except RuntimeError as e:
        print(f"BUGGY: {e}")
