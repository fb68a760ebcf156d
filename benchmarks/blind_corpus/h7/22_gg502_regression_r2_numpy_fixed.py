"""GG502 - .numpy() on a tensor that requires grad.

FIXED version. Original mistake: a tabular regression script.  After each epoch ``evaluate`` computes
R^2 and MAE with NumPy from ``model(X_val)``; it runs in eval mode but not under
``torch.no_grad()``, so the predictions carry a graph and ``.numpy()`` refuses
to convert them.

torch raised (buggy version): RuntimeError: Can't call numpy() on Tensor that
requires grad. Use tensor.detach().numpy() instead.
Fix: run the evaluation forward pass under ``torch.no_grad()``.

Modelled on: https://github.com/fastai/course-v3/issues/455
"""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn

CONFIG = {"n_train": 96, "n_val": 32, "features": 5, "hidden": 32, "epochs": 3,
          "lr": 5e-3, "batch": 16, "out_dir": tempfile.mkdtemp()}


class Standardizer:
    def fit(self, a):
        self.mu, self.sd = a.mean(0), a.std(0) + 1e-8
        return self

    def transform(self, a):
        return (a - self.mu) / self.sd


def make_data(rng, n, d):
    X = rng.normal(size=(n, d))
    w = np.linspace(1.0, -1.0, d)
    y = X @ w + 0.3 * np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=n)
    return X.astype(np.float32), y.astype(np.float32)


class PriceModel(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))

    def forward(self, x):
        return self.layers(x)


def evaluate(model, X_val, y_val):
    model.eval()
    with torch.no_grad():
        preds = model(torch.from_numpy(X_val)).squeeze(1).numpy()  # fixed: GG502
    ss_res = np.sum((y_val - preds) ** 2)
    ss_tot = np.sum((y_val - y_val.mean()) ** 2)
    return {"r2": 1 - ss_res / ss_tot, "mae": float(np.abs(y_val - preds).mean())}


def train_epoch(model, X, y, opt, loss_fn, batch):
    model.train()
    perm = np.random.permutation(len(X))
    for i in range(0, len(X), batch):
        idx = perm[i:i + batch]
        xb, yb = torch.from_numpy(X[idx]), torch.from_numpy(y[idx]).unsqueeze(1)
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
    return loss.item()


def main():
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    np.random.seed(0)
    X, y = make_data(rng, CONFIG["n_train"] + CONFIG["n_val"], CONFIG["features"])
    scaler = Standardizer().fit(X[:CONFIG["n_train"]])
    X = scaler.transform(X).astype(np.float32)
    Xtr, ytr, Xva, yva = X[:CONFIG["n_train"]], y[:CONFIG["n_train"]], X[CONFIG["n_train"]:], y[CONFIG["n_train"]:]
    model = PriceModel(CONFIG["features"], CONFIG["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    best = -np.inf
    for epoch in range(CONFIG["epochs"]):
        tr_loss = train_epoch(model, Xtr, ytr, opt, nn.MSELoss(), CONFIG["batch"])
        metrics = evaluate(model, Xva, yva)
        print(f"epoch {epoch}: train {tr_loss:.3f} val r2 {metrics['r2']:.3f} mae {metrics['mae']:.3f}")
        if metrics["r2"] > best:
            best = metrics["r2"]
            torch.save(model.state_dict(), os.path.join(CONFIG["out_dir"], "best.pt"))


if __name__ == "__main__":
    main()
    print("FIXED: ok")
