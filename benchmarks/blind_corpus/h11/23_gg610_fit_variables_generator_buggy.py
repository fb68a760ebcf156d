"""GG610 - generator of parameters iterated a second time sees nothing.

Mistake: the model wrapper's fit() accepts `variables` (which subset of parameters to
train) and the caller passes `net.head.parameters()`, a generator. fit() first turns
it into a tuple to use as a cache key for the optimizer, which exhausts the
generator, then hands the same, now empty, generator to the optimizer constructor.
torch raises: ValueError: optimizer got an empty parameter list

Modelled on: https://github.com/deepchem/deepchem/issues/3746
(fit_generator() consumed `variables` with tuple(variables) and passed the exhausted
generator to the optimizer factory).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SETTINGS = {"n_features": 24, "n_tasks": 2, "learning_rate": 1e-3, "batch_size": 16, "nb_epoch": 2}


class MultitaskNet(nn.Module):
    def __init__(self, n_features, n_tasks):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_features, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 32), nn.ReLU())
        self.head = nn.Linear(32, n_tasks)

    def forward(self, x):
        return self.head(self.body(x))


class Adam:
    """Small optimizer config object, in the style of a library wrapper."""

    def __init__(self, learning_rate):
        self.learning_rate = learning_rate

    def _create_pytorch_optimizer(self, params):
        return torch.optim.Adam(params, lr=self.learning_rate)


class TorchModel:
    def __init__(self, model, loss_fn, optimizer):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self._pytorch_optimizer = optimizer._create_pytorch_optimizer(model.parameters())
        self._optimizer_for_vars = {}

    def _select_optimizer(self, variables):
        if variables is None:
            return self._pytorch_optimizer
        var_key = tuple(variables)
        if var_key in self._optimizer_for_vars:
            return self._optimizer_for_vars[var_key]
        optimizer = self.optimizer._create_pytorch_optimizer(variables)  # bug: GG610
        self._optimizer_for_vars[var_key] = optimizer
        return optimizer

    def fit(self, loader, nb_epoch=1, variables=None):
        optimizer = self._select_optimizer(variables)
        self.model.train()
        avg = 0.0
        for epoch in range(nb_epoch):
            for x, y in loader:
                optimizer.zero_grad()
                loss = self.loss_fn(self.model(x), y)
                loss.backward()
                optimizer.step()
                avg = 0.9 * avg + 0.1 * loss.item()
            print(f"epoch {epoch}: smoothed loss {avg:.4f}")
        return avg


def main():
    torch.manual_seed(0)
    s = SETTINGS
    x = torch.randn(64, s["n_features"])
    y = torch.randn(64, s["n_tasks"])
    loader = DataLoader(TensorDataset(x, y), batch_size=s["batch_size"], shuffle=True)
    net = MultitaskNet(s["n_features"], s["n_tasks"])
    model = TorchModel(net, F.mse_loss, Adam(s["learning_rate"]))
    model.fit(loader, nb_epoch=s["nb_epoch"])
    # fine-tune only the output layer
    model.fit(loader, nb_epoch=s["nb_epoch"], variables=net.head.parameters())


if __name__ == "__main__":
    try:
        main()
    except ValueError as e:
        print("BUGGY:", str(e).splitlines()[0])
        raise SystemExit(0)
    raise SystemExit("NO BUG")
