"""GG606 - gradient accumulation without dividing the loss by the accumulation steps.

A Trainer with an update_freq option (step the optimizer every N micro-batches,
as in fairseq) trains an LSTM text classifier.  Each micro-batch loss is
already a mean, but it is back-propagated as-is, so after N micro-batches .grad
holds the SUM of N mean-gradients: N times the gradient of the large batch the
user wanted.  Learning rate and clip threshold are effectively N times larger.
No error is raised (silent): the logged gradient norm is ~update_freq times the
full-batch gradient norm.

Modelled on: https://github.com/facebookresearch/fairseq/issues/5256
"""
import copy
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class TrainConfig:
    vocab: int = 80
    emb: int = 16
    hidden: int = 24
    classes: int = 3
    seq_len: int = 9
    micro_batch: int = 4
    update_freq: int = 4
    lr: float = 1e-3
    clip_norm: float = 25.0
    max_epoch: int = 1


class LSTMClassifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab, cfg.emb)
        self.lstm = nn.LSTM(cfg.emb, cfg.hidden, batch_first=True)
        self.out = nn.Linear(cfg.hidden, cfg.classes)

    def forward(self, tokens):
        _, (h, _) = self.lstm(self.embed(tokens))
        return self.out(h[-1])


class Trainer:
    def __init__(self, cfg, model):
        self.cfg = cfg
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
        self.grad_norms = []
        self.num_updates = 0

    def train_step(self, samples):
        """samples: list of update_freq micro-batches; one optimizer update."""
        self.model.train()
        self.optimizer.zero_grad()
        logging_loss = 0.0
        for tokens, target in samples:
            loss = F.cross_entropy(self.model(tokens), target)
            loss.backward()  # bug: GG606
            logging_loss += loss.item()
        gnorm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.clip_norm)
        self.grad_norms.append(gnorm.item())
        self.optimizer.step()
        self.num_updates += 1
        return logging_loss / len(samples)

    def train_epoch(self, loader, epoch):
        buffer = []
        for i, batch in enumerate(loader):
            buffer.append(batch)
            if len(buffer) == self.cfg.update_freq:
                loss = self.train_step(buffer)
                print(f"epoch {epoch:03d} | update {self.num_updates:04d} | loss {loss:.3f} "
                      f"| gnorm {self.grad_norms[-1]:.3f}")
                buffer = []


def make_data(cfg, n=64):
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, cfg.vocab, (n, cfg.seq_len), generator=g)
    target = tokens[:, -1] % cfg.classes
    return tokens, target


def main():
    cfg = TrainConfig()
    torch.manual_seed(0)
    tokens, target = make_data(cfg)
    loader = DataLoader(TensorDataset(tokens, target), batch_size=cfg.micro_batch, shuffle=False)
    model = LSTMClassifier(cfg)
    initial = copy.deepcopy(model)
    trainer = Trainer(cfg, model)
    for epoch in range(cfg.max_epoch):
        trainer.train_epoch(loader, epoch)

    # reference: gradient norm of the first effective batch, computed in one go
    n_eff = cfg.micro_batch * cfg.update_freq
    ref_loss = F.cross_entropy(initial(tokens[:n_eff]), target[:n_eff])
    ref_loss.backward()
    ref_norm = torch.norm(torch.stack([p.grad.norm() for p in initial.parameters()])).item()
    return trainer.grad_norms[0], ref_norm, cfg.update_freq


if __name__ == "__main__":
    first_norm, ref_norm, n = main()
    ratio = first_norm / ref_norm
    if abs(ratio - n) < 0.05 * n:
        print(f"BUGGY: accumulated grad norm is {ratio:.2f}x the full-batch grad norm (update_freq={n})")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
