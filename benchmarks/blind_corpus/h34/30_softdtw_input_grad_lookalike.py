"""Soft-DTW barycentre step: gradient read from a converted tensor with retain_grad.

Modelled on: https://github.com/toinsson/pysdtw/issues/2 (counterpart)

Look-alike: as in the report, the sequences are produced by
``torch.rand(..., requires_grad=True).to(dtype=...)`` (a non-leaf) and ``.grad``
is read after backward, but ``retain_grad()`` is called on the converted
tensor first, so its ``.grad`` is populated.
"""
import torch


def pairwise_l2_squared(x, y):
    return ((x[:, :, None, :] - y[:, None, :, :]) ** 2).sum(-1)


def soft_dtw(x, y, gamma=1.0):
    d = pairwise_l2_squared(x, y)
    batch, n, m = d.shape
    inf = torch.full((batch,), float("inf"), dtype=d.dtype)
    r = [[inf] * (m + 1) for _ in range(n + 1)]
    r[0][0] = torch.zeros(batch, dtype=d.dtype)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            prev = torch.stack([r[i - 1][j - 1], r[i - 1][j], r[i][j - 1]], -1)
            r[i][j] = d[:, i - 1, j - 1] - gamma * torch.logsumexp(-prev / gamma, -1)
    return r[n][m]


def barycentre_gradient(series, template):
    template.retain_grad()
    loss = soft_dtw(template.expand(series.size(0), -1, -1), series).mean()
    loss.backward()
    return template.grad


if __name__ == "__main__":
    torch.manual_seed(0)
    series = torch.rand((8, 9, 3)).to(dtype=torch.float64)
    template = torch.rand((1, 5, 3), requires_grad=True).to(dtype=torch.float64)
    g = barycentre_gradient(series, template)
    assert g is not None and g.shape == (1, 5, 3)
    print("OK")
