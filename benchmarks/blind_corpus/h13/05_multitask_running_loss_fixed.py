"""Category GG203 - running loss totals keep every iteration's graph alive.

A two-head network (regression of a direction vector + classification of a
light state) sums the per-batch losses into running totals with ``+=`` on the
loss tensors themselves. Each total therefore becomes a tensor with a grad_fn
that references every batch's graph, so memory grows for the whole epoch
(RAM blow-up in the report). Silent: no exception, the statistic returned at
the end of the epoch still has a grad_fn chaining all batches.
Modelled on: https://github.com/samuelyu2002/ImVisible/issues/2
(This file: fixed version - the totals accumulate Python floats via .item().)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = dict(in_dim=20, n_classes=3, batch_size=8, lr=1e-3, epochs=1, mse_weight=0.5)


class LightNet(nn.Module):
    def __init__(self, in_dim, n_classes):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Dropout(0.1),
                                      nn.Linear(64, 32), nn.ReLU())
        self.cls_head = nn.Linear(32, n_classes)
        self.dir_head = nn.Linear(32, 4)

    def forward(self, x):
        h = self.backbone(x)
        return self.cls_head(h), self.dir_head(h)


def compute_losses(outputs, targets, mse_fn, ce_fn, w):
    logits, coords = outputs
    labels, points = targets
    mse = mse_fn(coords, points)
    ce = ce_fn(logits, labels)
    return w * mse + ce, mse, ce


def train_one_epoch(net, loader, optimizer, hp):
    mse_fn, ce_fn = nn.MSELoss(), nn.CrossEntropyLoss()
    net.train()
    running_loss = 0.0
    running_loss_mse = 0.0
    running_loss_ce = 0.0
    for i, (x, labels, points) in enumerate(loader):
        optimizer.zero_grad()
        loss, mse, ce = compute_losses(net(x), (labels, points), mse_fn, ce_fn, hp["mse_weight"])
        loss.backward()
        optimizer.step()
        running_loss += loss.item()  # fixed: GG203
        running_loss_mse += mse.item()
        running_loss_ce += ce.item()
    n = len(loader)
    return {"loss": running_loss / n, "mse": running_loss_mse / n, "ce": running_loss_ce / n}


def main(argv=None):
    torch.manual_seed(0)
    hp = HPARAMS
    n = hp["batch_size"] * 5
    ds = TensorDataset(torch.randn(n, hp["in_dim"]), torch.randint(0, hp["n_classes"], (n,)),
                       torch.randn(n, 4))
    loader = DataLoader(ds, batch_size=hp["batch_size"], shuffle=True)
    net = LightNet(hp["in_dim"], hp["n_classes"])
    optimizer = torch.optim.Adam(net.parameters(), lr=hp["lr"])
    history = []
    for epoch in range(hp["epochs"]):
        stats = train_one_epoch(net, loader, optimizer, hp)
        history.append(stats)
        print(f"epoch {epoch}: " + " ".join(f"{k}={float(v):.4f}" for k, v in stats.items()))
    return history


if __name__ == "__main__":
    history = main([])
    assert isinstance(history[-1]["loss"], float)
    print("FIXED: ok")
