"""Fixed: the trial requires a real criterion instead of faking a differentiable zero loss.

Modelled on: https://github.com/pytorchbearer/torchbearer/issues/414

torchbearer's Trial uses a zeros tensor as the loss when no criterion is
given, and the issue asks for it to require grad so backward() does not
error.  Forcing requires_grad on a loss with no history silences the error,
but the tensor is a leaf unrelated to the model: backward() runs, every model
gradient stays None and the optimizer never changes a weight.
"""
import torch
import torch.nn as nn


class Trial:
    def __init__(self, model, optimizer, criterion=None, callbacks=()):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.callbacks = list(callbacks)

    def _loss(self, state):
        if self.criterion is None:
            raise ValueError("Trial needs a criterion to train")
        else:
            loss = self.criterion(state["y_pred"], state["y_true"])
        for cb in self.callbacks:
            loss = loss + cb(state)
        return loss

    def run(self, loader, epochs=1):
        self.model.train()
        for _ in range(epochs):
            for x, y in loader:
                state = {"x": x, "y_true": y, "y_pred": self.model(x)}
                self.optimizer.zero_grad()
                loss = self._loss(state)
                loss.backward()
                self.optimizer.step()
        return self


def make_loader():
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(6, 5, generator=g), torch.randn(6, 1, generator=g)) for _ in range(3)]


def build(criterion):
    model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
    return Trial(model, torch.optim.SGD(model.parameters(), lr=0.1), criterion=criterion)


if __name__ == "__main__":
    trial = build(criterion=nn.MSELoss())
    before = [p.detach().clone() for p in trial.model.parameters()]
    trial.run(make_loader())
    unchanged = all(torch.equal(a, b) for a, b in zip(before, trial.model.parameters()))
    assert not unchanged
    print("FIXED: ok")
