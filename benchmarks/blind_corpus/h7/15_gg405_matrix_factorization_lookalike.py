"""GG405 look-alike (correct code) - scaled tensors handed to an optimizer, all leaves.

Matrix factorisation for ratings.  The factor matrices are initialised small
with ``(torch.randn(...) * 0.1).requires_grad_()`` and the biases with
``torch.zeros(...).to(device).requires_grad_()``: the arithmetic and the device
move happen *before* requires_grad is switched on, so the tensors given to the
optimizer are leaves.  (Compare with ``torch.randn(..., requires_grad=True) * 0.1``,
which would not be.)

Modelled on: https://github.com/vinsis/ternary-quantization/issues/4 (the
working variant proposed there: create the tensor on the device directly)
"""
import os
import tempfile

import torch

SETTINGS = dict(users=12, items=15, rank=3, epochs=30, lr=0.05, reg=1e-3, device="cpu")


def init_factors(s, device):
    U = (torch.randn(s["users"], s["rank"]) * 0.1).requires_grad_()
    V = (torch.randn(s["items"], s["rank"]) * 0.1).requires_grad_()
    bu = torch.zeros(s["users"]).to(device).requires_grad_()
    bi = torch.zeros(s["items"], device=device, requires_grad=True)
    return U, V, bu, bi


def predict(U, V, bu, bi, users, items, mu):
    return (U[users] * V[items]).sum(1) + bu[users] + bi[items] + mu


@torch.no_grad()
def holdout_rmse(U, V, bu, bi, users, items, ratings, mu):
    err = predict(U, V, bu, bi, users, items, mu) - ratings
    return err.pow(2).mean().sqrt().item()


def save_factors(path, **tensors):
    torch.save({k: v.detach() for k, v in tensors.items()}, path)


def main():
    torch.manual_seed(0)
    s = SETTINGS
    device = torch.device(s["device"])
    n_obs = 60
    users = torch.randint(0, s["users"], (n_obs,))
    items = torch.randint(0, s["items"], (n_obs,))
    ratings = torch.randint(1, 6, (n_obs,)).float()
    mu = ratings.mean()
    U, V, bu, bi = init_factors(s, device)
    opt = torch.optim.Adam([U, V, bu, bi], lr=s["lr"])
    first = None
    for epoch in range(s["epochs"]):
        opt.zero_grad()
        err = predict(U, V, bu, bi, users, items, mu) - ratings
        loss = err.pow(2).mean() + s["reg"] * (U.pow(2).sum() + V.pow(2).sum())
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    assert loss.item() < first
    print(f"rmse after {s['epochs']} epochs: {err.pow(2).mean().sqrt().item():.3f}")
    print(f"holdout rmse: {holdout_rmse(U, V, bu, bi, users[:10], items[:10], ratings[:10], mu):.3f}")
    save_factors(os.path.join(tempfile.mkdtemp(), "mf.pt"), U=U, V=V, bu=bu, bi=bi)


if __name__ == "__main__":
    main()
    print("OK")
