"""GG407 look-alike - .grad inspected before backward(), expecting None, then after.

Multi-task trainer with a gradient monitor. Right after ``zero_grad()`` it checks
``p.grad is None`` for every parameter (a sanity check that no stale gradients
leak between steps) - reading .grad before backward, but handling None. The
norm is computed by a helper that skips parameters without a gradient, and it
is called only after ``loss.backward()``. Looks like reading .grad too early;
runs cleanly.

Modelled on: https://github.com/Cranial-XIX/FAMO/issues/4
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

HP = {"n_tasks": 3, "in_dim": 8, "hidden": 16, "steps": 4, "lr": 1e-2, "clip": 1.0}


class SharedBottom(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(hp["in_dim"], hp["hidden"]), nn.ReLU())
        self.towers = nn.ModuleList([nn.Linear(hp["hidden"], 1) for _ in range(hp["n_tasks"])])
        self.unused_tower = nn.Linear(hp["hidden"], 1)

    def forward(self, x):
        h = self.bottom(x)
        return torch.cat([t(h) for t in self.towers], dim=1)


def grad_norm(parameters):
    norms = [p.grad.detach().norm() for p in parameters if p.grad is not None]
    return torch.stack(norms).norm().item() if norms else 0.0


class GradMonitor:
    def __init__(self, model):
        self.model = model
        self.history = []

    def assert_clean(self):
        stale = [n for n, p in self.model.named_parameters() if p.grad is not None]
        assert not stale, f"stale gradients: {stale}"

    def record(self):
        self.history.append(grad_norm(self.model.parameters()))


def main():
    torch.manual_seed(0)
    model = SharedBottom(HP)
    optimizer = torch.optim.SGD(model.parameters(), lr=HP["lr"])
    monitor = GradMonitor(model)
    for step in range(HP["steps"]):
        x = torch.randn(8, HP["in_dim"])
        y = torch.randn(8, HP["n_tasks"])
        optimizer.zero_grad(set_to_none=True)
        monitor.assert_clean()
        losses = F.mse_loss(model(x), y, reduction="none").mean(0)
        loss = losses.sum()
        loss.backward()
        monitor.record()
        torch.nn.utils.clip_grad_norm_(model.parameters(), HP["clip"])
        optimizer.step()
        print(f"step {step}: task losses {[round(v, 3) for v in losses.tolist()]} |g|={monitor.history[-1]:.3f}")
    assert model.unused_tower.weight.grad is None


if __name__ == "__main__":
    main()
    print("OK")
