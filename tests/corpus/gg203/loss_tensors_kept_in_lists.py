"""A loss history that stores the loss tensor itself, once per training iteration (GG203).

`losses.append(loss)` after `loss.backward()` keeps each iteration's autograd graph alive
through the stored tensor: the list grows by one graph per batch for the whole run, as a
running total `total += loss` does. Loss curves for a plot are the usual reason; the plot
then also fails on tensors that require grad (GG502). Storing `loss.item()` keeps a number.

The look-alikes store `.item()` or `.detach()`, keep per-step log-probabilities that one
backward after the episode runs through (REINFORCE), collect losses to backpropagate their
sum once, or start a fresh list on every iteration.
"""

import torch
import torch.nn.functional as F


def fit(model, loader, optimizer, epochs):
    history = []
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            history.append(loss)  # expect: GG203
    return history


class Experiment:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def run(self, batches):
        train_losses = []
        for x, y in batches:
            self.optimizer.zero_grad()
            loss = (self.model(x) - y).pow(2).mean()
            loss.backward()
            self.optimizer.step()
            train_losses.append(loss)  # expect: GG203
        return train_losses


# --- look-alikes ---------------------------------------------------------------------------


def fit_with_numbers(model, loader, optimizer):
    history = []
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        history.append(loss.item())
        history.append(loss.detach())
    return history


def reinforce_episode(policy, states, optimizer):
    log_probs = []
    for state in states:
        dist = policy(state)
        log_probs.append(dist.log_prob(dist.sample()))
    loss = -torch.stack(log_probs).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def summed_once(model, batches, optimizer):
    losses = []
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        losses.append(loss)
    optimizer.zero_grad()
    torch.stack(losses).mean().backward()
    optimizer.step()


def fresh_list_per_step(model, batches, optimizer):
    for x, y in batches:
        step_losses = []
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        step_losses.append(loss)
        print(step_losses)


def backward_through_the_list_too(model, batches, optimizer):
    kept = []
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        loss.backward(retain_graph=True)
        kept.append(loss)
    torch.stack(kept).sum().backward()
    optimizer.step()
