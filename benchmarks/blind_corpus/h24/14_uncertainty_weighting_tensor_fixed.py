"""GG105 - torch.tensor() over a list of task losses cuts them off the graph.

Mistake: the learned-uncertainty multi-task loss packs the per-task losses into
one vector with torch.tensor(list_of_losses).  That copies the values into a
fresh leaf, so backward() only reaches the log-sigma parameters; the shared
encoder and both task heads get no gradient (silent: .grad stays None and the
weights never move).
Fixed: torch.stack(per_task) keeps every task loss in the graph.

Modelled on: https://discuss.pytorch.org/t/how-to-learn-the-weights-between-two-losses/39681
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

warnings.filterwarnings("ignore", category=UserWarning)

CONFIG = {"in_dim": 10, "hidden": 32, "epochs": 2, "batch_size": 16, "lr": 0.05}


class SharedEncoder(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())

    def forward(self, x):
        return self.net(x)


class MultiHeadNet(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.encoder = SharedEncoder(in_dim, hidden)
        self.depth_head = nn.Linear(hidden, 1)
        self.normal_head = nn.Linear(hidden, 3)

    def forward(self, x):
        h = self.encoder(x)
        return {"depth": self.depth_head(h).squeeze(1), "normals": self.normal_head(h)}


class UncertaintyWeightedLoss(nn.Module):
    """Kendall et al. style weighting with one learned log-variance per task."""

    def __init__(self, task_names):
        super().__init__()
        self.task_names = list(task_names)
        self.log_vars = nn.Parameter(torch.zeros(len(self.task_names)))

    def forward(self, preds, targets):
        per_task = [F.l1_loss(preds[t], targets[t]) for t in self.task_names]
        stacked = torch.stack(per_task)  # fixed: GG105
        weighted = 0.5 * torch.exp(-self.log_vars) * stacked + 0.5 * self.log_vars
        return weighted.sum(), {t: l.item() for t, l in zip(self.task_names, per_task)}


def train(model, criterion, loader, optimizer, epochs):
    for epoch in range(epochs):
        for x, depth, normals in loader:
            preds = model(x)
            loss, parts = criterion(preds, {"depth": depth, "normals": normals})
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: total {loss.item():.3f} " + " ".join(f"{k}={v:.3f}" for k, v in parts.items()))


def main():
    torch.manual_seed(0)
    x = torch.randn(64, CONFIG["in_dim"])
    depth = x[:, 0] * 2 + 0.1 * torch.randn(64)
    normals = F.normalize(x[:, 1:4], dim=1)
    loader = DataLoader(TensorDataset(x, depth, normals), batch_size=CONFIG["batch_size"], shuffle=True)
    model = MultiHeadNet(CONFIG["in_dim"], CONFIG["hidden"])
    criterion = UncertaintyWeightedLoss(["depth", "normals"])
    optimizer = torch.optim.SGD(list(model.parameters()) + list(criterion.parameters()), lr=CONFIG["lr"])
    enc_before = model.encoder.net[0].weight.detach().clone()
    train(model, criterion, loader, optimizer, CONFIG["epochs"])
    return model, criterion, enc_before


if __name__ == "__main__":
    model, criterion, enc_before = main()
    assert model.encoder.net[0].weight.grad is not None
    assert not torch.equal(enc_before, model.encoder.net[0].weight)
    print("FIXED: ok")
