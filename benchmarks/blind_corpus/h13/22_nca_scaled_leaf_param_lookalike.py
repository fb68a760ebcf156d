"""Category GG405 look-alike - optimizer given tensors built with arithmetic, but leaves.

An NCA-style metric learner creates its projection matrix as
``(torch.randn(...) * scale).requires_grad_()`` and a per-feature gain as
``nn.Parameter(init.clone() * 2)``. Both expressions involve arithmetic, but the
arithmetic happens before gradients are switched on (or inside an nn.Parameter
wrapper), so both tensors are leaves and the optimizer accepts them.
No error; prints OK.
Modelled on: https://github.com/kevinzakka/torchnca/issues/5
"""
import torch
import torch.nn as nn


class NCA:
    def __init__(self, dim, k, init_scale=0.1, lr=1e-2, max_iters=5, device="cpu"):
        self.device = torch.device(device)
        self.A = (torch.randn(dim, k, device=self.device) * init_scale).requires_grad_()
        init = torch.ones(dim, device=self.device)
        self.gain = nn.Parameter(init.clone() * 2)
        self.lr, self.max_iters = lr, max_iters
        self.optimizer = torch.optim.SGD([self.A, self.gain], lr=lr, momentum=0.9)

    def embed(self, X):
        return (X * self.gain) @ self.A

    def loss(self, X, y):
        z = self.embed(X)
        d = torch.cdist(z, z).pow(2)
        d.fill_diagonal_(float("inf"))
        p = torch.softmax(-d, dim=1)
        same = (y[:, None] == y[None, :]).float()
        return -(p * same).sum(1).mean()

    def fit(self, X, y):
        history = []
        for it in range(self.max_iters):
            self.optimizer.zero_grad()
            loss = self.loss(X, y)
            loss.backward()
            self.optimizer.step()
            history.append(loss.item())
        return history


def gen_data(n_per, n_classes, dim):
    Xs, ys = [], []
    for c in range(n_classes):
        Xs.append(torch.randn(n_per, dim) + c)
        ys.append(torch.full((n_per,), c))
    return torch.cat(Xs), torch.cat(ys)


def main():
    torch.manual_seed(0)
    X, y = gen_data(10, 3, 5)
    nca = NCA(dim=5, k=2)
    assert nca.A.is_leaf and nca.gain.is_leaf
    hist = nca.fit(X, y)
    print("loss:", " ".join(f"{h:.3f}" for h in hist))


if __name__ == "__main__":
    main()
    print("OK")
