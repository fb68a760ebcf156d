"""Soft-DTW discrepancy between batches of sequences, gradient w.r.t. the input.

Modelled on: https://github.com/toinsson/pysdtw/issues/2

Fixed version: the input is created directly with the configured device and
dtype and ``requires_grad=True``, so X is a leaf and X.grad is populated.
"""
import argparse
import warnings

import torch


def pairwise_l2_squared(x, y):
    return ((x[:, :, None, :] - y[:, None, :, :]) ** 2).sum(-1)


class SoftDTW(torch.nn.Module):
    def __init__(self, gamma=1.0, dist_func=pairwise_l2_squared):
        super().__init__()
        self.gamma = gamma
        self.dist_func = dist_func

    def softmin(self, a, b, c):
        stacked = torch.stack([a, b, c], dim=-1)
        return -self.gamma * torch.logsumexp(-stacked / self.gamma, dim=-1)

    def forward(self, x, y):
        d = self.dist_func(x, y)
        batch, n, m = d.shape
        inf = torch.full((batch,), float("inf"), dtype=d.dtype, device=d.device)
        r = [[inf] * (m + 1) for _ in range(n + 1)]
        r[0][0] = torch.zeros(batch, dtype=d.dtype, device=d.device)
        for i in range(1, n + 1):
            for j in range(1, m + 1):
                r[i][j] = d[:, i - 1, j - 1] + self.softmin(r[i - 1][j - 1], r[i - 1][j], r[i][j - 1])
        return r[n][m]


def get_config(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu")
    p.add_argument("--dtype", default="float64")
    p.add_argument("--gamma", type=float, default=1.0)
    return p.parse_args(argv)


def main():
    cfg = get_config([])
    device, dtype = torch.device(cfg.device), getattr(torch, cfg.dtype)
    torch.manual_seed(0)
    # the input data includes a batch dimension
    X = torch.rand((10, 5, 7), device=device, dtype=dtype, requires_grad=True)
    Y = torch.rand((10, 9, 7)).to(device=device, dtype=dtype)
    sdtw = SoftDTW(gamma=cfg.gamma, dist_func=pairwise_l2_squared)
    res = sdtw(X, Y)
    loss = res.sum()
    loss.backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x_grad = X.grad
    if x_grad is None:
        print("FIXED broke: X.grad is None")
    else:
        print("FIXED: ok")


if __name__ == "__main__":
    main()
