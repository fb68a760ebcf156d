"""GG610 look-alike - one `params` variable reused for the optimizer, clipping and logging.

`Forecaster.__init__` stores the model parameters in `self.params` and the same
variable is later passed to the optimizer, to `clip_grad_norm_` every step and
to a gradient-norm logger.  Reusing a parameter variable like this is exactly
how the exhausted-generator bug looks - but here it is
`list(model.parameters())`, which can be iterated any number of times.
Correct: clipping really limits the gradient norm and every parameter trains.

Modelled on: https://github.com/mikeizbicki/cmc-csci181-deeplearning/issues/7
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

WINDOW, FEATURES, HIDDEN = 12, 3, 24
MAX_NORM = 0.5
EPOCHS = 2


class GRURegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(FEATURES, HIDDEN, batch_first=True)
        self.head = nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 1))

    def forward(self, x):
        _, h = self.gru(x)
        return self.head(h[-1]).squeeze(-1)


class Forecaster:
    def __init__(self, model, lr=5e-3):
        self.model = model
        self.params = list(model.parameters())
        self.optimizer = torch.optim.RMSprop(self.params, lr=lr)
        self.loss_fn = nn.MSELoss()
        self.clipped_norms = []

    def grad_norm(self):
        return torch.norm(torch.stack([p.grad.norm() for p in self.params if p.grad is not None])).item()

    def fit(self, loader):
        for epoch in range(EPOCHS):
            self.model.train()
            for x, y in loader:
                self.optimizer.zero_grad()
                loss = self.loss_fn(self.model(x), y)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.params, MAX_NORM)
                self.clipped_norms.append(self.grad_norm())
                self.optimizer.step()
            print(f"epoch {epoch}: loss {loss.item():.4f}, clipped grad norm {self.clipped_norms[-1]:.3f}")


def make_loader(n=96):
    x = torch.randn(n, WINDOW, FEATURES).cumsum(dim=1)
    y = 10.0 * x[:, -1, 0] + x[:, -3:, 1].mean(1)
    return DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)


def check_training():
    torch.manual_seed(0)
    model = GRURegressor()
    start = [p.detach().clone() for p in model.parameters()]
    fc = Forecaster(model)
    fc.fit(make_loader())
    assert max(fc.clipped_norms) <= MAX_NORM + 1e-4, "clipping had no effect"
    assert all(not torch.equal(p.detach(), s) for p, s in zip(model.parameters(), start)), "a parameter never moved"


if __name__ == "__main__":
    check_training()
    print("OK")
