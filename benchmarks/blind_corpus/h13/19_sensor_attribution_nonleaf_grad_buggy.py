"""Category GG403 - .grad of a non-leaf tensor read (None without retain_grad()).

The attribution helper turns on requires_grad on the raw float64 numpy
window *before* casting it to float32, adding a batch dim and moving it to the
device. The tensor that goes into the model is therefore a non-leaf; after
backward() its ``.grad`` is None (torch only warns), and the next line fails:
    AttributeError: 'NoneType' object has no attribute 'abs'
Modelled on: https://github.com/pytorch/pytorch/issues/7425
(This file: buggy version.)
"""
import numpy as np
import torch
import torch.nn as nn

SETTINGS = {"channels": 4, "window": 24, "classes": 3, "device": "cpu", "train_steps": 5, "lr": 1e-2}


class SensorCNN(nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv1d(channels, 16, 5, padding=2), nn.BatchNorm1d(16), nn.ReLU(),
            nn.Conv1d(16, 16, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        return self.head(self.body(x).squeeze(-1))


def quick_fit(model, data, labels, steps, lr):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(data), labels)
        loss.backward()
        opt.step()
    return loss.item()


def channel_attribution(model, window_np, target, device):
    """Return |d score / d input| summed over time, one value per sensor channel."""
    model.eval()
    x = torch.from_numpy(window_np).requires_grad_(True)
    x = x.float().unsqueeze(0).to(device)
    score = model(x)[0, target]
    model.zero_grad()
    score.backward()
    sal = x.grad.abs().squeeze(0)  # bug: GG403
    return sal.sum(dim=1)


def main(argv=None):
    torch.manual_seed(0)
    np.random.seed(0)
    s = SETTINGS
    model = SensorCNN(s["channels"], s["classes"]).to(s["device"])
    data = torch.randn(16, s["channels"], s["window"])
    labels = torch.randint(0, s["classes"], (16,))
    print(f"fit loss {quick_fit(model, data, labels, s['train_steps'], s['lr']):.3f}")
    window = np.random.randn(s["channels"], s["window"])
    attr = channel_attribution(model, window, target=1, device=s["device"])
    ranking = attr.argsort(descending=True).tolist()
    print(f"channel importance ranking: {ranking}")
    return attr


if __name__ == "__main__":
    try:
        main([])
    except AttributeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        raise SystemExit(0)
    raise SystemExit("NO BUG")
