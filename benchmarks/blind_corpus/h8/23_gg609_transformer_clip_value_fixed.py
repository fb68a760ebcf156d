"""GG609 (fixed) - the clipping helper unscales the gradients first.

Originally `_clip_gradients()` ran `clip_grad_value_` on gradients still
multiplied by the GradScaler's loss scale, so every element was clamped to
+/-clip_value in scaled units and the real update became ~65536x too small.
Fix: `self.scaler.unscale_(self.optimizer)` before clipping (scaler.step() then
does not unscale a second time).

Modelled on: https://github.com/rwth-i6/returnn/issues/1590
"""
import os
import tempfile
from dataclasses import dataclass, field

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Config:
    vocab: int = 40
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    n_labels: int = 6
    seq_len: int = 10
    lr: float = 0.05
    clip_value: float = 0.1
    epochs: int = 1
    batch_size: int = 8
    out_dir: str = field(default_factory=lambda: tempfile.mkdtemp(prefix="amp_"))


class TokenTagger(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab, cfg.d_model)
        layer = nn.TransformerEncoderLayer(cfg.d_model, cfg.n_heads, dim_feedforward=64,
                                           dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, cfg.n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(cfg.d_model, cfg.n_labels)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)))


class AmpTrainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9)
        self.scaler = torch.amp.GradScaler("cpu")
        self.criterion = nn.CrossEntropyLoss()
        self.step_count = 0

    def _clip_gradients(self):
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_value_(self.model.parameters(), self.cfg.clip_value)  # fixed: GG609

    def train_step(self, tokens, labels):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            logits = self.model(tokens)
        loss = self.criterion(logits.float().reshape(-1, self.cfg.n_labels), labels.reshape(-1))
        self.scaler.scale(loss).backward()
        self._clip_gradients()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.step_count += 1
        return loss.item()

    def fit(self, loader):
        self.model.train()
        for epoch in range(self.cfg.epochs):
            losses = [self.train_step(x, y) for x, y in loader]
            print(f"epoch {epoch}: mean loss {sum(losses) / len(losses):.4f} scale {self.scaler.get_scale():.0f}")
        torch.save({"model": self.model.state_dict(), "scaler": self.scaler.state_dict()},
                   os.path.join(self.cfg.out_dir, "last.pt"))


def make_loader(cfg, n=48):
    tokens = torch.randint(0, cfg.vocab, (n, cfg.seq_len))
    labels = tokens % cfg.n_labels
    return DataLoader(TensorDataset(tokens, labels), batch_size=cfg.batch_size, shuffle=True)


def check_training():
    torch.manual_seed(0)
    cfg = Config()
    model = TokenTagger(cfg)
    trainer = AmpTrainer(model, cfg)
    applied = []
    # scaler.step() unscales before calling optimizer.step(): this sees the gradients actually used
    trainer.optimizer.register_step_pre_hook(
        lambda opt, a, kw: applied.append(max(p.grad.abs().max().item() for p in model.parameters()
                                              if p.grad is not None)))
    trainer.fit(make_loader(cfg))
    assert max(applied) > 1e-4, (
        f"largest gradient element ever applied is {max(applied):.2e}: values were clipped "
        f"to +/-{cfg.clip_value} while still multiplied by the loss scale"
    )


if __name__ == "__main__":
    check_training()
    print("FIXED: ok")
