"""Estimator wrapper whose reset() re-initialises the existing network in place.

Look-alike: reset() keeps the same nn.Module and calls reset_parameters() on its layers,
which overwrites the existing Parameter tensors in place, so the optimizer built at
construction time still holds exactly the model's parameters (its state is cleared).

Modelled on: https://github.com/Trusted-AI/adversarial-robustness-toolbox/pull/1580

ART's ``PyTorchClassifier`` keeps ``self._model`` and ``self._optimizer``. Cloning the
classifier for refitting (and ``reset()``) re-created the network from scratch while the
optimizer passed in at construction time still held the parameters of the original
network. ``fit()`` then back-propagates into the new network but ``optimizer.step()``
updates tensors that are no longer part of the model, so the refitted classifier never
learns. The check shows the new model's weights are unchanged after fit().
"""
import copy

import torch
import torch.nn as nn


class ModelWrapper(nn.Module):
    def __init__(self, model):
        super().__init__()
        self._model = model

    def forward(self, x):
        return self._model(x)


class PyTorchClassifier:
    def __init__(self, model, loss, optimizer, input_shape, nb_classes):
        self._initial_model = copy.deepcopy(model)
        self._model = ModelWrapper(model)
        self._loss = loss
        self._optimizer = optimizer
        self._input_shape = input_shape
        self.nb_classes = nb_classes

    @property
    def model(self):
        return self._model._model

    def _apply_preprocessing(self, x, y):
        x = (x - x.mean(0, keepdim=True)) / (x.std(0, keepdim=True) + 1e-6)
        return x, y

    def fit(self, x, y, batch_size=16, nb_epochs=3):
        self._model.train()
        x, y = self._apply_preprocessing(x, y)
        n = x.shape[0]
        for _ in range(nb_epochs):
            perm = torch.randperm(n)
            for start in range(0, n, batch_size):
                idx = perm[start:start + batch_size]
                self._optimizer.zero_grad()
                loss = self._loss(self._model(x[idx]), y[idx])
                loss.backward()
                self._optimizer.step()

    def predict(self, x):
        self._model.eval()
        with torch.no_grad():
            x, _ = self._apply_preprocessing(x, None)
            return self._model(x).argmax(1)

    def reset(self):
        """Re-initialise the network so that the estimator can be refit from scratch."""
        for module in self._model.modules():
            if hasattr(module, "reset_parameters"):
                module.reset_parameters()
        self._optimizer.state.clear()

    def clone_for_refitting(self):
        model = copy.deepcopy(self._initial_model)
        optimizer = type(self._optimizer)(model.parameters(), **self._optimizer.defaults)
        return PyTorchClassifier(model, self._loss, optimizer, self._input_shape, self.nb_classes)


def make_data(n=96):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 8, generator=g)
    y = (x[:, 0] + x[:, 1] > 0).long()
    return x, y


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    clf = PyTorchClassifier(net, nn.CrossEntropyLoss(), optimizer, (8,), 2)
    x, y = make_data()
    clf.fit(x, y)
    clf.reset()
    before = [p.detach().clone() for p in clf.model.parameters()]
    clf.fit(x, y)
    unchanged = all(torch.equal(b, p) for b, p in zip(before, clf.model.parameters()))
    assert not unchanged
    print("OK")
