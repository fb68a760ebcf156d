"""Look-alikes of an evaluation entry point: functions nothing in this file calls, and models
known only from `model.eval()`, where keeping outputs is fine or who calls it is unknown.

A plain module-level function that nothing in the file names is an entry point: code
elsewhere calls it with recording on, so an evaluation loop in it that keeps outputs with
their graphs is reported (see `evaluate_helpers_with_parameters.py`). None of these is.
"""

import torch
from lightning.pytorch import LightningModule


class Registry:
    def register(self, function):
        return function


registry = Registry()


@registry.register
def evaluate_registered(model, loader):
    # Decorated: a framework calls it, and may well do so under no_grad.
    model.eval()
    outputs = []
    for x in loader:
        outputs.append(model(x))
    return outputs


def evaluate_step(model, batch):
    # Handed to other code as a callback below: who calls it, and how, is unknown.
    model.eval()
    outputs = []
    for x in batch:
        outputs.append(model(x))
    return outputs


CALLBACKS = {"eval": evaluate_step}


class LitClassifier(LightningModule):
    def validation_step(self, model, batches):
        # A method of a framework's class: Lightning calls it under no_grad.
        model.eval()
        outputs = []
        for x in batches:
            outputs.append(model(x))
        return outputs


def query_frames(frames):
    # pandas' DataFrame.eval takes an expression: not a module.
    results = []
    for frame in frames:
        frame.eval("c = a + b")
        results.append(frame(1))
    return results


def evaluate_numbers(model, loader):
    model.eval()
    total = 0.0
    for x, y in loader:
        total += (model(x) - y).abs().mean().item()
    return total


def evaluate_inside_no_grad(model, loader):
    model.eval()
    outputs = []
    with torch.no_grad():
        for x in loader:
            outputs.append(model(x))
    return outputs


def fine_tune(model, loader, optimizer):
    # Trains: the kept outputs are for a backward pass.
    model.eval()
    outputs = []
    for x in loader:
        outputs.append(model(x))
    loss = torch.stack(outputs).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def main(loader):
    def evaluate_nested(model):
        # Nested in main and never called: unknown.
        model.eval()
        outputs = []
        for x in loader:
            outputs.append(model(x))
        return outputs

    return evaluate_nested
