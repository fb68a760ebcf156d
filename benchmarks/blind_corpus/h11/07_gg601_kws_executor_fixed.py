"""GG601 - training loop steps the optimizer but never clears gradients.

Fixed version: optimizer.zero_grad() at the top of every iteration.

Mistake (in the buggy file): the keyword-spotting Executor.train loop does backward(), clipping and
optimizer.step() for every batch but never calls optimizer.zero_grad(), so each
step uses the sum of all gradients seen so far. Silent effect: the .grad read after
the second backward equals the first batch's gradient plus the second's.

Modelled on: https://github.com/wenet-e2e/wekws/pull/73
(kws/utils/executor.py stepped the optimizer without ever zeroing the gradients).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIGS = {
    "model": {"input_dim": 20, "hidden_dim": 32, "num_keywords": 3},
    "training": {"lr": 1e-3, "grad_clip": 50.0, "log_interval": 2, "max_epoch": 1, "batch_size": 8},
}


class GRUKWS(nn.Module):
    def __init__(self, input_dim, hidden_dim, num_keywords):
        super().__init__()
        self.proj = nn.Linear(input_dim, hidden_dim)
        self.gru = nn.GRU(hidden_dim, hidden_dim, batch_first=True)
        self.classifier = nn.Linear(hidden_dim, num_keywords)

    def forward(self, feats):
        x = F.relu(self.proj(feats))
        x, _ = self.gru(x)
        return self.classifier(x)  # (B, T, K) frame-level logits


def max_pooling_loss(logits, target):
    # keyword present -> push max frame probability up
    probs = torch.sigmoid(logits).max(dim=1).values
    onehot = F.one_hot(target, logits.shape[-1]).float()
    loss = F.binary_cross_entropy(probs.clamp(1e-6, 1 - 1e-6), onehot)
    acc = (probs.argmax(-1) == target).float().mean()
    return loss, acc


class GradMonitor:
    """Records the fresh gradient each backward delivers to one parameter."""

    def __init__(self, param):
        self.incoming = []
        self.stored = []
        self.param = param
        param.register_hook(lambda g: self.incoming.append(g.detach().clone()))

    def snapshot(self):
        self.stored.append(self.param.grad.detach().clone())


class Executor:
    def __init__(self, monitor=None):
        self.step = 0
        self.monitor = monitor

    def train(self, model, optimizer, data_loader, device, args):
        model.train()
        clip = args["grad_clip"]
        log_interval = args["log_interval"]
        for batch_idx, (feats, target) in enumerate(data_loader):  # fixed: GG601
            feats, target = feats.to(device), target.to(device)
            optimizer.zero_grad()
            logits = model(feats)
            loss, acc = max_pooling_loss(logits, target)
            loss.backward()
            if self.monitor is not None:
                self.monitor.snapshot()
            grad_norm = nn.utils.clip_grad_norm_(model.parameters(), clip)
            if torch.isfinite(grad_norm):
                optimizer.step()
            if batch_idx % log_interval == 0:
                print(f"TRAIN Batch {batch_idx} loss {loss.item():.6f} acc {acc.item():.3f}")
            self.step += 1


def main():
    torch.manual_seed(0)
    cfg = CONFIGS
    feats = torch.randn(32, 25, cfg["model"]["input_dim"])
    labels = torch.randint(0, cfg["model"]["num_keywords"], (32,))
    loader = DataLoader(TensorDataset(feats, labels), batch_size=cfg["training"]["batch_size"])
    model = GRUKWS(**cfg["model"])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["training"]["lr"])
    monitor = GradMonitor(model.classifier.weight)
    executor = Executor(monitor)
    for epoch in range(cfg["training"]["max_epoch"]):
        executor.train(model, optimizer, loader, torch.device("cpu"), cfg["training"])
    g1, g2 = monitor.incoming[0], monitor.incoming[1]
    assert torch.allclose(monitor.stored[1], g2, atol=1e-6)
    return torch.allclose(monitor.stored[1], g1 + g2, atol=1e-6)


if __name__ == "__main__":
    assert not main(), "gradients still accumulate"
    print("FIXED: ok")
