"""A course notebook's training engine: `train_step` sums the batch losses into
`train_loss` (the learner dropped the `.item()` the course uses), returns the average, and
`train()` appends it to `results["train_loss"]`; `plot_loss_curves(results)` then hands the
list to `plt.plot`, which raises "Can't call numpy() on Tensor that requires grad. Use
tensor.detach().numpy() instead." (checked with torch 2.13.0 and matplotlib). The summing
itself also keeps every batch's graph alive for the whole epoch.

Source (rewritten in our own words, structure kept): https://github.com/mrdbourke/pytorch-deep-learning/issues/583
- `train_step(model, dataloader, loss_fn, optimizer)`, `train(...)` building a results dict
over epochs, `plot_loss_curves(results)`; the reporter's own conclusion: use `.item()`.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import torch
from torch import nn


def train_step(model, dataloader, loss_fn, optimizer):
    model.train()
    train_loss = 0
    for X, y in dataloader:
        y_pred = model(X)
        loss = loss_fn(y_pred, y)
        train_loss += loss  # expect: GG203
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return train_loss / len(dataloader)


def train_step_items(model, dataloader, loss_fn, optimizer):
    model.train()
    train_loss = 0
    for X, y in dataloader:
        y_pred = model(X)
        loss = loss_fn(y_pred, y)
        train_loss += loss.item()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return train_loss / len(dataloader)


def train(model, dataloader, optimizer, loss_fn, epochs, step=train_step):
    results = {"train_loss": []}
    for epoch in range(epochs):
        train_loss = step(model, dataloader, loss_fn, optimizer)
        results["train_loss"].append(train_loss)
    return results


def plot_loss_curves(results):
    loss = results["train_loss"]
    epochs = range(len(loss))
    plt.plot(epochs, loss, label="train_loss")  # missed: GG502
    plt.close()


def fit_and_plot(model, dataloader, optimizer, loss_fn, epochs):
    """The same in one function: the history holds loss tensors and goes to matplotlib."""
    history = []
    for epoch in range(epochs):
        for X, y in dataloader:
            loss = loss_fn(model(X), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.append(loss)  # expect: GG203
    plt.plot(history)  # expect: GG502
    plt.close()


def fit_and_plot_items(model, dataloader, optimizer, loss_fn, epochs):
    history = []
    for epoch in range(epochs):
        for X, y in dataloader:
            loss = loss_fn(model(X), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.append(loss.item())
    plt.plot(history)
    plt.close()


net = nn.Linear(3, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = [(torch.randn(4, 3), torch.randint(0, 2, (4,))) for _ in range(2)]
try:
    plot_loss_curves(train(net, data, opt, nn.CrossEntropyLoss(), 2))
except RuntimeError as error:
    assert "numpy" in str(error)
plot_loss_curves(train(net, data, opt, nn.CrossEntropyLoss(), 2, step=train_step_items))
try:
    fit_and_plot(net, data, opt, nn.CrossEntropyLoss(), 1)
except RuntimeError as error:
    assert "numpy" in str(error)
fit_and_plot_items(net, data, opt, nn.CrossEntropyLoss(), 1)
