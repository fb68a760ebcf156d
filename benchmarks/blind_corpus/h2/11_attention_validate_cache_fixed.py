"""GG204 (fixed): Trainer.validate is decorated with @torch.no_grad().

Category GG204. ``validate`` still calls the shared ``_forward`` helper and caches the
embeddings and attention maps, but autograd is off for the whole method, so the cached
tensors carry no graph. The buggy version recorded a graph for every validation batch and
kept all of them alive through ``self.val_cache``.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class AttentionPooler(nn.Module):
    def __init__(self, d_in=6, d_model=16, n_heads=2, n_classes=2):
        super().__init__()
        self.inp = nn.Linear(d_in, d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, x):
        h = self.inp(x)
        a, weights = self.attn(h, h, h, need_weights=True)
        pooled = self.norm(h + a).mean(dim=1)
        return self.head(pooled), pooled, weights


class Trainer:
    def __init__(self, model, train_loader, val_loader, lr=3e-3):
        self.model = model
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=3)
        self.val_cache = {}

    def _forward(self, batch):
        x, y = batch
        logits, pooled, weights = self.model(x)
        return {"loss": F.cross_entropy(logits, y), "logits": logits, "emb": pooled, "attn": weights}

    def train_epoch(self):
        self.model.train()
        for batch in self.train_loader:
            out = self._forward(batch)
            self.optimizer.zero_grad()
            out["loss"].backward()
            self.optimizer.step()
        self.scheduler.step()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        embs, attns, correct, total = [], [], 0, 0
        for batch in self.val_loader:  # fixed: GG204
            out = self._forward(batch)
            embs.append(out["emb"])
            attns.append(out["attn"])
            correct += (out["logits"].argmax(-1) == batch[1]).sum().item()
            total += batch[1].numel()
        self.val_cache = {"emb": torch.cat(embs), "attn": torch.cat(attns)}
        return correct / total

    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_epoch()
            acc = self.validate()
            print(f"epoch {epoch}: val acc {acc:.2%} lr {self.scheduler.get_last_lr()[0]:.2e}")


def main():
    torch.manual_seed(9)
    x = torch.randn(80, 5, 6)
    y = (x[:, :, 0].mean(1) > 0).long()
    train_loader = DataLoader(TensorDataset(x[:60], y[:60]), batch_size=10, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[60:], y[60:]), batch_size=10)
    trainer = Trainer(AttentionPooler(), train_loader, val_loader)
    trainer.fit(epochs=3)
    return trainer


if __name__ == "__main__":
    trainer = main()
    attn = trainer.val_cache["attn"]
    assert attn.grad_fn is None and trainer.val_cache["emb"].grad_fn is None
    print("FIXED: ok")
