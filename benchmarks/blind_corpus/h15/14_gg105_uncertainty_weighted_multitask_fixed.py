"""GG105 - torch.tensor() over per-task losses cuts them out of the graph.

Category: GG105 (torch.tensor(...) of tensors with history).
The mistake: a multi-task model with learned homoscedastic-uncertainty
weights gathers the per-task losses with torch.tensor([...]) so it can do a
vectorised weighting.  torch.tensor copies the values into a fresh leaf, so
the total loss still has a grad_fn (through the log-variance parameters)
and backward() runs, but no gradient ever reaches the shared encoder or the
task heads.  Silent effect: encoder/heads keep .grad None and never change;
only the log-variances are trained.
This file: FIXED version - torch.stack keeps every task loss in the graph.
Modelled on: https://github.com/pytorch/pytorch/issues/155983
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

TASKS = ("depth", "segm", "normal")


class SharedEncoder(nn.Module):
    def __init__(self, d_in, d_h):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_h), nn.ReLU(), nn.Linear(d_h, d_h), nn.ReLU())

    def forward(self, x):
        return self.net(x)


class MultiTaskNet(nn.Module):
    def __init__(self, d_in=12, d_h=32, n_seg=4):
        super().__init__()
        self.encoder = SharedEncoder(d_in, d_h)
        self.heads = nn.ModuleDict({"depth": nn.Linear(d_h, 1), "segm": nn.Linear(d_h, n_seg),
                                    "normal": nn.Linear(d_h, 3)})

    def forward(self, x):
        z = self.encoder(x)
        return {k: head(z) for k, head in self.heads.items()}


class UncertaintyWeighting(nn.Module):
    """Kendall et al. style weighting: sum_i exp(-s_i) * L_i + s_i."""

    def __init__(self, n_tasks):
        super().__init__()
        self.log_vars = nn.Parameter(torch.zeros(n_tasks))

    def forward(self, task_losses):
        losses = torch.stack([task_losses[t] for t in TASKS])  # fixed: GG105
        return (torch.exp(-self.log_vars) * losses + self.log_vars).sum()


def compute_task_losses(preds, batch):
    _, depth, segm, normal = batch
    return {"depth": F.l1_loss(preds["depth"].squeeze(-1), depth),
            "segm": F.cross_entropy(preds["segm"], segm),
            "normal": 1 - F.cosine_similarity(preds["normal"], normal, dim=-1).mean()}


def train(model, weighting, loader, optimizer, epochs=1):
    history = []
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            preds = model(batch[0])
            task_losses = compute_task_losses(preds, batch)
            total = weighting(task_losses)
            optimizer.zero_grad()
            total.backward()
            optimizer.step()
            history.append({k: v.item() for k, v in task_losses.items()})
            print(f"epoch {epoch} step {step} total {total.item():.4f}")
    return history


def main():
    torch.manual_seed(0)
    n = 32
    data = TensorDataset(torch.randn(n, 12), torch.rand(n), torch.randint(0, 4, (n,)),
                         F.normalize(torch.randn(n, 3), dim=-1))
    model, weighting = MultiTaskNet(), UncertaintyWeighting(len(TASKS))
    optimizer = torch.optim.Adam(list(model.parameters()) + list(weighting.parameters()), lr=1e-2)
    w0 = model.encoder.net[0].weight.detach().clone()
    train(model, weighting, DataLoader(data, batch_size=8), optimizer)
    return model, weighting, w0


if __name__ == "__main__":
    model, weighting, w0 = main()
    assert model.encoder.net[0].weight.grad is not None
    assert not torch.equal(w0, model.encoder.net[0].weight)
    print("FIXED: ok")
