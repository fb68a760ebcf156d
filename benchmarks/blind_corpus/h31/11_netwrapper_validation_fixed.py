"""sklearn-style NeuralNet wrapper whose validation step builds graphs.

Modelled on: https://github.com/skorch-dev/skorch/pull/219

The PR ("Bugfix/no grad during valid") fixed a wrapper whose
`validation_step()` ran the module's forward pass with autograd enabled: after
PyTorch 0.4 removed `volatile`, every validation batch recorded a full graph,
and since the wrapper keeps the validation predictions (for scoring and
callbacks) those graphs stay alive, so memory grows across the validation loop
until the GPU runs out.  This wrapper has the same structure (fit ->
run_single_epoch -> train_step / validation_step) and the same omission; the
check at the bottom shows that the cached validation predictions still carry a
grad_fn.

Fixed version: validation_step runs under torch.no_grad().
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ClassifierModule(nn.Module):
    def __init__(self, n_in=20, hidden=32, n_out=3, dropout=0.2):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, n_out))

    def forward(self, X):
        return self.seq(X)


class NeuralNet:
    def __init__(self, module, criterion=nn.CrossEntropyLoss, lr=0.05, max_epochs=2,
                 batch_size=32):
        self.module_ = module
        self.criterion_ = criterion()
        self.optimizer_ = torch.optim.SGD(module.parameters(), lr=lr)
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.history = []
        self.valid_cache_ = []

    def infer(self, Xi):
        return self.module_(Xi)

    def get_loss(self, y_pred, y_true):
        return self.criterion_(y_pred, y_true)

    def train_step(self, Xi, yi):
        self.module_.train()
        self.optimizer_.zero_grad()
        y_pred = self.infer(Xi)
        loss = self.get_loss(y_pred, yi)
        loss.backward()
        self.optimizer_.step()
        return {"loss": loss, "y_pred": y_pred}

    def validation_step(self, Xi, yi):
        self.module_.eval()
        with torch.no_grad():
            y_pred = self.infer(Xi)
            loss = self.get_loss(y_pred, yi)
        return {"loss": loss, "y_pred": y_pred}

    def run_single_epoch(self, loader, training):
        step_fn = self.train_step if training else self.validation_step
        losses = []
        for Xi, yi in loader:
            out = step_fn(Xi, yi)
            losses.append(out["loss"].item())
            if not training:
                self.valid_cache_.append(out["y_pred"])
        return sum(losses) / len(losses)

    def fit(self, X, y, X_valid, y_valid):
        train_loader = DataLoader(TensorDataset(X, y), batch_size=self.batch_size, shuffle=True)
        valid_loader = DataLoader(TensorDataset(X_valid, y_valid), batch_size=self.batch_size)
        for epoch in range(self.max_epochs):
            self.valid_cache_ = []
            train_loss = self.run_single_epoch(train_loader, training=True)
            valid_loss = self.run_single_epoch(valid_loader, training=False)
            self.history.append({"epoch": epoch, "train_loss": train_loss,
                                 "valid_loss": valid_loss})
        return self

    def valid_accuracy(self, y_valid):
        preds = torch.cat(self.valid_cache_).argmax(1)
        return (preds == y_valid).float().mean().item()


def make_data(n=128, n_in=20, seed=0):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, n_in, generator=g)
    y = (X[:, :3].argmax(1)).long()
    return X, y


if __name__ == "__main__":
    torch.manual_seed(0)
    X, y = make_data()
    Xv, yv = make_data(96, seed=1)
    net = NeuralNet(ClassifierModule()).fit(X, y, Xv, yv)
    acc = net.valid_accuracy(yv)
    assert all(p.grad_fn is None for p in net.valid_cache_)
    print("FIXED: ok")
