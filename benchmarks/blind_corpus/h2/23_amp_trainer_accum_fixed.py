"""GG606 (fixed): AMP trainer divides each micro-batch loss by grad_accum before scaling.

Category GG606. ``train_step`` back-propagates ``losses["ce"] / self.grad_accum`` through
the GradScaler, so the accumulated (unscaled) gradient is that of the effective batch.
In the buggy version it was grad_accum times larger; here we assert the first update's
gradient norm matches the one of the same samples in a single batch.
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class TinyTransformerClassifier(nn.Module):
    def __init__(self, vocab=40, d_model=16, n_classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.block = nn.TransformerEncoderLayer(d_model, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, tokens):
        return self.head(self.block(self.embed(tokens)).mean(dim=1))


class Trainer:
    def __init__(self, model, grad_accum=3, lr=5e-4, clip=1e3):
        self.model = model
        self.grad_accum = grad_accum
        self.clip = clip
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler("cpu")
        self.update_norms = []
        self.micro_step = 0

    def compute_loss(self, batch):
        tokens, labels = batch
        return {"ce": F.cross_entropy(self.model(tokens), labels)}

    def _optimizer_step(self):
        self.scaler.unscale_(self.optimizer)
        norm = nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.update_norms.append(norm.item())
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)

    def train_step(self, batch):
        losses = self.compute_loss(batch)
        self.scaler.scale(losses["ce"] / self.grad_accum).backward()  # fixed: GG606
        self.micro_step += 1
        if self.micro_step % self.grad_accum == 0:
            self._optimizer_step()
        return losses["ce"].item()

    def train_epoch(self, loader):
        self.model.train()
        losses = [self.train_step(batch) for batch in loader]
        return sum(losses) / len(losses)


def reference_norm(model, dataset, n):
    tokens, labels = dataset[:n]
    F.cross_entropy(model(tokens), labels).backward()
    return torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None])).item()


def main():
    torch.manual_seed(21)
    dataset = TensorDataset(torch.randint(0, 40, (60, 6)), torch.randint(0, 3, (60,)))
    loader = DataLoader(dataset, batch_size=5, shuffle=False)
    model = TinyTransformerClassifier()
    trainer = Trainer(model, grad_accum=3)
    ref = reference_norm(copy.deepcopy(model), dataset, 15)
    print(f"epoch loss {trainer.train_epoch(loader):.3f}, updates {len(trainer.update_norms)}")
    return trainer.update_norms[0] / ref, trainer.grad_accum


if __name__ == "__main__":
    ratio, accum = main()
    assert abs(ratio - 1.0) < 1e-2, ratio
    print("FIXED: ok")
