"""Loss histories kept as lists of tensors (one list per learning rate, or per user), then
handed to NumPy: every element is converted with `Tensor.numpy()`, which raises "Can't call
numpy() on Tensor that requires grad" (checked with torch 2.13.0 and numpy 2).

Sources (rewritten in our own words, structure kept):
* https://github.com/source-separation/tutorial/issues/28 - a gradient-descent notebook keeps
  one list of losses per learning rate, appends the lists to `losses`, and plots
  `np.log10(losses[j])` on the second axes; the fix is to store detached values.
* https://github.com/zhuangdizhu/FedGen/issues/1 - the server weights each test loss by its
  sample count in a comprehension over `zip(samples, losses)` and sums it with `np.sum`.
* https://github.com/mrdbourke/pytorch-deep-learning/issues/583 - a course's training loop
  keeps its curves in a `results` dict of lists and plots `results["train_loss"]`; the losses
  appended were tensors. The same history is also handed to a plotting helper.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn

LEARNING_RATES = [0.1, 0.01]


def sweep(steps):
    grad_norms, losses = [], []
    for lr in LEARNING_RATES:
        weight = torch.randn(4, requires_grad=True)
        run_losses, run_norms = [], []
        for _ in range(steps):
            loss = (weight**2).sum()
            loss.backward()
            with torch.no_grad():
                weight -= lr * weight.grad
            run_norms.append(weight.grad.norm().item())
            weight.grad.zero_()
            run_losses.append(loss)  # expect: GG203
        grad_norms.append(run_norms)
        losses.append(run_losses)
    return grad_norms, losses


def plot_sweep(steps):
    grad_norms, losses = [], []
    for lr in LEARNING_RATES:
        weight = torch.randn(4, requires_grad=True)
        run_losses = []
        for _ in range(steps):
            loss = (weight**2).sum()
            loss.backward()
            with torch.no_grad():
                weight -= lr * weight.grad
            weight.grad.zero_()
            run_losses.append(loss)  # expect: GG203
        losses.append(run_losses)
    fig, ax = plt.subplots(1, 2)
    for j, lr in enumerate(LEARNING_RATES):
        ax[1].plot(np.log10(losses[j]), label=f"lr {lr}")  # expect: GG502
    plt.close(fig)


def plot_sweep_detached(steps):
    losses = []
    for lr in LEARNING_RATES:
        weight = torch.randn(4, requires_grad=True)
        run_losses = []
        for _ in range(steps):
            loss = (weight**2).sum()
            loss.backward()
            with torch.no_grad():
                weight -= lr * weight.grad
            weight.grad.zero_()
            run_losses.append(loss.item())
        losses.append(run_losses)
    fig, ax = plt.subplots(1, 2)
    for j, lr in enumerate(LEARNING_RATES):
        ax[1].plot(np.log10(losses[j]), label=f"lr {lr}")
    plt.close(fig)


def fit_with_results_dict(steps):
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    results = {"train_loss": [], "train_acc": []}
    for _ in range(steps):
        loss = model(torch.randn(4, 3)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        results["train_loss"].append(loss)
        results["train_acc"].append(0.5)
    plt.plot(results["train_acc"])
    plt.plot(results["train_loss"])  # expect: GG502
    plt.close()


def fit_with_results_dict_of_numbers(steps):
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    results = {"train_loss": [], "train_acc": []}
    for _ in range(steps):
        loss = model(torch.randn(4, 3)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        results["train_loss"].append(loss.item())
        results["train_acc"].append(0.5)
    plt.plot(results["train_loss"])
    plt.close()


def show_curve(history):
    plt.plot(history)  # expect: GG502
    plt.close()


def show_numbers(history):
    plt.plot(history)
    plt.close()


def fit_and_show(steps):
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    history, numbers = [], []
    for _ in range(steps):
        loss = model(torch.randn(4, 3)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss)  # expect: GG203
        numbers.append(loss.item())
    show_numbers(numbers)
    show_curve(history)


class Server:
    def __init__(self, batches):
        self.batches = batches
        self.model = nn.Linear(3, 1)

    def evaluate(self):
        samples, losses = [], []
        for x, y in self.batches:
            loss = nn.functional.mse_loss(self.model(x), y)
            samples.append(len(x))
            losses.append(loss)
        weighted = np.sum([n * l for (n, l) in zip(samples, losses)])  # expect: GG502
        return weighted.item() / np.sum(samples)

    def evaluate_detached(self):
        samples, losses = [], []
        for x, y in self.batches:
            loss = nn.functional.mse_loss(self.model(x), y)
            samples.append(len(x))
            losses.append(loss.detach())
        weighted = np.sum([n * l for (n, l) in zip(samples, losses)])
        return weighted.item() / np.sum(samples)

    def evaluate_numbers(self):
        losses = [nn.functional.mse_loss(self.model(x), y) for x, y in self.batches]
        return np.mean([loss.item() for loss in losses]), [i for i, _ in enumerate(losses)]


sweep(3)
try:
    fit_with_results_dict(2)
except RuntimeError as error:
    assert "numpy" in str(error)
fit_with_results_dict_of_numbers(2)
try:
    fit_and_show(2)
except RuntimeError as error:
    assert "numpy" in str(error)
try:
    plot_sweep(3)
except RuntimeError as error:
    assert "numpy" in str(error)
plot_sweep_detached(3)
server = Server([(torch.randn(4, 3), torch.randn(4, 1))])
try:
    server.evaluate()
except RuntimeError as error:
    assert "numpy" in str(error)
server.evaluate_detached()
server.evaluate_numbers()
