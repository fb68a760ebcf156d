"""GG601 (fixed): trainer clears gradients inside the batch loop.

Category GG601. ``optimizer.zero_grad()`` moved from before the batch loop into it, so
every step uses only the current batch's gradient. In the buggy version the gradient at
the last step of an epoch was the sum of every batch's gradient; here we assert that it
equals the fresh gradient of the last batch.
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class ConvSeqClassifier(nn.Module):
    def __init__(self, channels=2, n_classes=3):
        super().__init__()
        self.conv1 = nn.Conv1d(channels, 8, kernel_size=3, padding=1)
        self.conv2 = nn.Conv1d(8, 8, kernel_size=3, padding=1)
        self.fc = nn.Linear(8, n_classes)

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = F.relu(self.conv2(h))
        return self.fc(h.mean(dim=-1))


class SeqTrainer:
    def __init__(self, model, loader, lr=1e-2, device="cpu"):
        self.model = model.to(device)
        self.loader = loader
        self.device = device
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.scheduler = torch.optim.lr_scheduler.ExponentialLR(self.optimizer, gamma=0.9)

    def on_after_backward(self, batch):
        pass

    def compute_loss(self, batch):
        x, y = (t.to(self.device) for t in batch)
        return F.cross_entropy(self.model(x), y)

    def train_epoch(self, epoch):
        self.model.train()
        losses = []
        for batch in self.loader:  # fixed: GG601
            self.optimizer.zero_grad()
            loss = self.compute_loss(batch)
            loss.backward()
            self.on_after_backward(batch)
            self.optimizer.step()
            losses.append(loss.item())
        self.scheduler.step()
        print(f"epoch {epoch}: loss {sum(losses) / len(losses):.4f}")


class RecordingTrainer(SeqTrainer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.records = []

    def on_after_backward(self, batch):
        self.records.append({
            "state": copy.deepcopy(self.model.state_dict()),
            "grads": [p.grad.clone() for p in self.model.parameters()],
            "batch": batch,
        })


def fresh_grads(trainer, record):
    probe = copy.deepcopy(trainer.model)
    probe.load_state_dict(record["state"])
    x, y = record["batch"]
    F.cross_entropy(probe(x), y).backward()
    return [p.grad for p in probe.parameters()]


def main():
    torch.manual_seed(15)
    x = torch.randn(40, 2, 12)
    y = torch.randint(0, 3, (40,))
    loader = DataLoader(TensorDataset(x, y), batch_size=10, shuffle=True)
    trainer = RecordingTrainer(ConvSeqClassifier(), loader)
    trainer.train_epoch(0)
    summed = [sum(gs) for gs in zip(*(fresh_grads(trainer, r) for r in trainer.records))]
    last = trainer.records[-1]["grads"]
    fresh_last = fresh_grads(trainer, trainer.records[-1])
    return last, summed, fresh_last


def close(a, b):
    return all(torch.allclose(u, v, atol=1e-5) for u, v in zip(a, b))


if __name__ == "__main__":
    last, summed, fresh_last = main()
    assert close(last, fresh_last), "last step did not use the fresh gradient of its batch"
    print("FIXED: ok")
