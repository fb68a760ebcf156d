"""GG606 - accumulated micro-batch losses are not divided by the accumulation count.

Mistake: `Trainer.train_epoch` steps the optimizer every `accum_steps` batches
(to emulate a bigger batch on small memory).  `compute_loss` returns a dict of
mean losses (tag loss + auxiliary length loss) and their sum is back-propagated
on every micro-batch without being divided by `accum_steps`.
Silent effect (no exception): the gradient used by each step is `accum_steps`
times the gradient of the equivalent large batch; the effective learning rate
grows with the accumulation setting.

Modelled on: https://github.com/ApolloResearch/e2e_sae/pull/70
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {
    "vocab": 60,
    "n_tags": 5,
    "emb": 16,
    "hidden": 24,
    "seq_len": 10,
    "batch_size": 4,
    "accum_steps": 4,
    "lr": 0.1,
    "aux_weight": 0.1,
}


class BiLSTMTagger(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg["vocab"], cfg["emb"])
        self.rnn = nn.LSTM(cfg["emb"], cfg["hidden"], batch_first=True, bidirectional=True)
        self.tagger = nn.Linear(2 * cfg["hidden"], cfg["n_tags"])
        self.length_head = nn.Linear(2 * cfg["hidden"], 1)

    def forward(self, tokens):
        out, _ = self.rnn(self.emb(tokens))
        return {"tags": self.tagger(out), "length": self.length_head(out.mean(1)).squeeze(-1)}


def compute_loss(outputs, tags, lengths, cfg):
    tag_loss = F.cross_entropy(outputs["tags"].reshape(-1, cfg["n_tags"]), tags.reshape(-1))
    len_loss = F.mse_loss(outputs["length"], lengths)
    return {"tag": tag_loss, "len": cfg["aux_weight"] * len_loss}


class Trainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
        self.accum_steps = cfg["accum_steps"]
        self.step_grad_norms = []

    def _grad_norm(self):
        return torch.norm(torch.stack([p.grad.norm() for p in self.model.parameters()])).item()

    def train_epoch(self, loader):
        self.model.train()
        self.optimizer.zero_grad()
        for i, (tokens, tags, lengths) in enumerate(loader):
            losses = compute_loss(self.model(tokens), tags, lengths, self.cfg)
            total = sum(losses.values())
            total.backward()  # bug: GG606
            if (i + 1) % self.accum_steps == 0:
                self.step_grad_norms.append(self._grad_norm())
                self.optimizer.step()
                self.optimizer.zero_grad()
                print(f"update {len(self.step_grad_norms)}: " +
                      ", ".join(f"{k}={v.item():.3f}" for k, v in losses.items()))


def make_dataset(cfg, n=32):
    tokens = torch.randint(0, cfg["vocab"], (n, cfg["seq_len"]))
    tags = tokens % cfg["n_tags"]
    lengths = (tokens > 30).float().sum(1)
    return TensorDataset(tokens, tags, lengths)


def big_batch_grad_norm(model, dataset, cfg):
    """Gradient norm of a single batch holding the first accumulation window."""
    n = cfg["batch_size"] * cfg["accum_steps"]
    tokens, tags, lengths = dataset[:n]
    ref = copy.deepcopy(model)
    losses = compute_loss(ref(tokens), tags, lengths, cfg)
    sum(losses.values()).backward()
    return torch.norm(torch.stack([p.grad.norm() for p in ref.parameters()])).item()


def check_training():
    torch.manual_seed(0)
    cfg = CFG
    dataset = make_dataset(cfg)
    model = BiLSTMTagger(cfg)
    expected = big_batch_grad_norm(model, dataset, cfg)
    trainer = Trainer(model, cfg)
    trainer.train_epoch(DataLoader(dataset, batch_size=cfg["batch_size"], shuffle=False))
    ratio = trainer.step_grad_norms[0] / expected
    assert abs(ratio - 1.0) < 1e-3, (
        f"first update used {ratio:.2f}x the big-batch gradient (accum_steps={cfg['accum_steps']})"
    )


if __name__ == "__main__":
    try:
        check_training()
    except AssertionError as err:
        print(f"BUGGY: {err}")
    else:
        raise SystemExit("NO BUG")
