"""Optuna-style objective that switches to eval mode for validation and never back.

Modelled on: https://github.com/optuna/optuna/pull/1725

In optuna's ``pytorch_simple.py`` example ``objective`` called ``model.train()`` once,
before the epoch loop, and ``model.eval()`` inside the loop for the validation pass. From
the second epoch on, the model trains in eval mode, so the Dropout layers chosen by the
trial are silently disabled. The check records ``model.training`` at every training batch.
(A minimal stand-in for optuna's trial object is included so the file runs offline.)
"""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCHSIZE = 16
CLASSES = 3
EPOCHS = 3
N_TRAIN_EXAMPLES = BATCHSIZE * 4
N_VALID_EXAMPLES = BATCHSIZE * 2


class FixedTrial:
    """Tiny replacement for optuna.trial.FixedTrial (suggest_* + report)."""

    def __init__(self, params):
        self.params = params
        self.reports = {}

    def suggest_int(self, name, low, high):
        return self.params.get(name, low)

    def suggest_float(self, name, low, high, log=False):
        return self.params.get(name, low)

    def suggest_categorical(self, name, choices):
        return self.params.get(name, choices[0])

    def report(self, value, step):
        self.reports[step] = value

    def should_prune(self):
        return False


def define_model(trial):
    n_layers = trial.suggest_int("n_layers", 1, 3)
    layers = []
    in_features = 10
    for i in range(n_layers):
        out_features = trial.suggest_int(f"n_units_l{i}", 4, 32)
        layers.append(nn.Linear(in_features, out_features))
        layers.append(nn.ReLU())
        layers.append(nn.Dropout(trial.suggest_float(f"dropout_l{i}", 0.2, 0.5)))
        in_features = out_features
    layers.append(nn.Linear(in_features, CLASSES))
    return nn.Sequential(*layers)


def get_data():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(N_TRAIN_EXAMPLES + N_VALID_EXAMPLES, 10, generator=g)
    y = (x[:, :3].argmax(1))
    train = [(x[i:i + BATCHSIZE], y[i:i + BATCHSIZE]) for i in range(0, N_TRAIN_EXAMPLES, BATCHSIZE)]
    valid = [(x[i:i + BATCHSIZE], y[i:i + BATCHSIZE])
             for i in range(N_TRAIN_EXAMPLES, N_TRAIN_EXAMPLES + N_VALID_EXAMPLES, BATCHSIZE)]
    return train, valid


def objective(trial, mode_log):
    model = define_model(trial)
    optimizer_name = trial.suggest_categorical("optimizer", ["Adam", "RMSprop", "SGD"])
    lr = trial.suggest_float("lr", 1e-3, 1e-1, log=True)
    optimizer = getattr(torch.optim, optimizer_name)(model.parameters(), lr=lr)
    train_loader, valid_loader = get_data()

    for epoch in range(EPOCHS):
        model.train()
        for data, target in train_loader:
            mode_log.append(model.training)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(data), target)
            loss.backward()
            optimizer.step()

        model.eval()
        correct = 0
        with torch.no_grad():
            for data, target in valid_loader:
                correct += model(data).argmax(1).eq(target).sum().item()
        accuracy = correct / N_VALID_EXAMPLES
        trial.report(accuracy, epoch)
    return accuracy


if __name__ == "__main__":
    random.seed(0)
    torch.manual_seed(0)
    trial = FixedTrial({"n_layers": 2, "n_units_l0": 16, "n_units_l1": 8, "optimizer": "Adam"})
    modes = []
    objective(trial, modes)
    eval_batches = modes.count(False)
    assert eval_batches == 0
    print("FIXED: ok")
