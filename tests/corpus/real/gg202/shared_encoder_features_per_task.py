"""Multi-task training where the shared encoder runs once per batch and each task head
backpropagates its own loss in a loop over the heads: the first head's backward frees the
encoder part of the graph, and the second head's backward raises "Trying to backward
through the graph a second time". Summing the task losses (or `retain_graph=True` on all
but the last) is the fix given in the thread.

Source (rewritten in our own words, structure kept):
https://github.com/rosinality/swapping-autoencoder-pytorch/issues/12 (reusing one forward
for two backward passes needs `retain_graph=True`) and the pytorch_GAN_zoo report in
https://github.com/facebookresearch/pytorch_GAN_zoo/issues/83

Still missed: the heads are items of an `nn.ModuleList` built from a generator; the class
of an item is not known, so `head(shared)` is not known to run through `shared`.
"""

import torch
from torch import nn


class MultiTaskNet(nn.Module):
    def __init__(self, n_tasks: int = 2) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.heads = nn.ModuleList(nn.Linear(8, 1) for _ in range(n_tasks))


def train_step(model, optimizer, x, targets):
    optimizer.zero_grad()
    shared = model.encoder(x)
    for head, target in zip(model.heads, targets):
        loss = nn.functional.mse_loss(head(shared), target)
        loss.backward()  # missed: GG202
    optimizer.step()


def train_step_fixed(model, optimizer, x, targets):
    optimizer.zero_grad()
    shared = model.encoder(x)
    total = sum(nn.functional.mse_loss(head(shared), t) for head, t in zip(model.heads, targets))
    total.backward()
    optimizer.step()


if __name__ == "__main__":
    net = MultiTaskNet()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x, ts = torch.randn(3, 4), [torch.randn(3, 1), torch.randn(3, 1)]
    try:
        train_step(net, opt, x, ts)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second-backward error")
    train_step_fixed(net, opt, x, ts)
