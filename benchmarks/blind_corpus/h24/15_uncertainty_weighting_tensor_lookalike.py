"""GG105 look-alike - torch.tensor(...) built from plain numbers next to a
multi-task loss.

The static task weights and the logged per-task values are turned into tensors
with torch.tensor(), but they come from Python floats (config values and
.item() results), never from tensors that carry history.  The actual objective
is combined with torch.stack, so every head trains.

Modelled on: https://discuss.pytorch.org/t/how-to-learn-the-weights-between-two-losses/39681 (fixed form)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

TASK_WEIGHTS = {"depth": 1.0, "normals": 0.5}
STEPS, LR = 20, 0.05


class MultiHeadNet(nn.Module):
    def __init__(self, in_dim=10, hidden=32):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.heads = nn.ModuleDict({"depth": nn.Linear(hidden, 1), "normals": nn.Linear(hidden, 3)})

    def forward(self, x):
        h = self.encoder(x)
        return {name: head(h) for name, head in self.heads.items()}


def compute_losses(preds, targets):
    return {
        "depth": F.l1_loss(preds["depth"].squeeze(1), targets["depth"]),
        "normals": 1 - F.cosine_similarity(preds["normals"], targets["normals"]).mean(),
    }


def log_metrics(step, history):
    table = torch.tensor(history)  # rows of python floats
    mean = table.mean(0)
    print(f"step {step}: depth={mean[0]:.3f} normals={mean[1]:.3f}")


def main():
    torch.manual_seed(0)
    x = torch.randn(64, 10)
    targets = {"depth": 2 * x[:, 0], "normals": F.normalize(x[:, 1:4], dim=1)}
    model = MultiHeadNet()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    weights = torch.tensor([TASK_WEIGHTS[k] for k in ("depth", "normals")])
    history = []
    first = None
    for step in range(STEPS):
        losses = compute_losses(model(x), targets)
        total = (weights * torch.stack([losses["depth"], losses["normals"]])).sum()
        opt.zero_grad()
        total.backward()
        opt.step()
        history.append([losses["depth"].item(), losses["normals"].item()])
        first = first if first is not None else total.item()
        if step % 10 == 9:
            log_metrics(step, history[-10:])
    assert model.encoder[0].weight.grad is not None
    assert total.item() < first


if __name__ == "__main__":
    main()
    print("OK")
