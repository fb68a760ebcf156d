"""Logistic regression "from scratch" (raw tensors), refactored to use torch.optim.

Modelled on: https://github.com/pytorch/tutorials/pull/3717

The PR explains a trap in the "neural net from scratch" tutorial: the weights
are Xavier-scaled (`/ math.sqrt(784)`), and if `requires_grad=True` is passed to
`torch.randn(...)` BEFORE that division, the division is recorded and the
resulting `weights` is a non-leaf tensor (a computed value with a grad_fn),
which an optimizer cannot update.  This script makes exactly that choice in its
parameter constructor and then hands the tensors to torch.optim.SGD, which
raises "ValueError: can't optimize a non-leaf Tensor".

Fixed version: the weights are scaled first and flagged with requires_grad_()
afterwards, as the tutorial does.
"""
import math

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

N_FEATURES, N_CLASSES = 784, 10
BS, LR, EPOCHS = 64, 0.5, 2


def get_data(n_train=512, n_valid=128):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(n_train + n_valid, N_FEATURES, generator=g)
    proto = torch.randn(N_CLASSES, N_FEATURES, generator=g)
    y = (x @ proto.t()).argmax(1)
    train = TensorDataset(x[:n_train], y[:n_train])
    valid = TensorDataset(x[n_train:], y[n_train:])
    return (DataLoader(train, batch_size=BS, shuffle=True),
            DataLoader(valid, batch_size=BS * 2))


class ScratchLogistic:
    """Parameters as raw tensors, forward as a plain function."""

    def __init__(self):
        self.weights = torch.randn(N_FEATURES, N_CLASSES) / math.sqrt(N_FEATURES)
        self.weights.requires_grad_()  # flag it after the init math: stays a leaf
        self.bias = torch.zeros(N_CLASSES, requires_grad=True)

    def parameters(self):
        return [self.weights, self.bias]

    def __call__(self, xb):
        return F.log_softmax(xb @ self.weights + self.bias, dim=-1)


def accuracy(out, yb):
    return (out.argmax(dim=1) == yb).float().mean()


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def get_model():
    model = ScratchLogistic()
    return model, torch.optim.SGD(model.parameters(), lr=LR)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = sum(l * n for l, n in zip(losses, nums)) / sum(nums)
    return val_loss


def main():
    torch.manual_seed(0)
    train_dl, valid_dl = get_data()
    model, opt = get_model()
    return fit(EPOCHS, model, F.nll_loss, opt, train_dl, valid_dl)


if __name__ == "__main__":
    val_loss = main()
    assert val_loss == val_loss
    print("FIXED: ok")
