"""Category GG204 - evaluation loop keeps every output's graph alive (no torch.no_grad()).

``Trainer.validate`` switches the model to eval mode but runs the forward
passes with autograd still enabled, and it keeps the per-batch log-probs in a
list for later scoring. Every kept output carries a grad_fn and pins its whole
forward graph, so validation memory grows with the size of the valid set.
Silent: no error; the collected validation outputs still require grad.
Modelled on: https://github.com/OpenNMT/OpenNMT-py/issues/1141
(This file: fixed version - validation runs under torch.no_grad().)
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

OPTS = {"src_vocab": 40, "tgt_vocab": 40, "emb": 16, "rnn": 32, "batch": 4,
        "seq": 7, "train_steps": 3, "valid_batches": 3, "lr": 1.0, "max_grad_norm": 5.0}


class Statistics:
    def __init__(self, loss=0.0, n_words=0, n_correct=0):
        self.loss, self.n_words, self.n_correct = loss, n_words, n_correct

    def update(self, other):
        self.loss += other.loss
        self.n_words += other.n_words
        self.n_correct += other.n_correct

    def ppl(self):
        return math.exp(min(self.loss / max(self.n_words, 1), 100))

    def accuracy(self):
        return 100.0 * self.n_correct / max(self.n_words, 1)


class TinyNMT(nn.Module):
    def __init__(self, o):
        super().__init__()
        self.src_emb = nn.Embedding(o["src_vocab"], o["emb"])
        self.tgt_emb = nn.Embedding(o["tgt_vocab"], o["emb"])
        self.encoder = nn.LSTM(o["emb"], o["rnn"], batch_first=True)
        self.decoder = nn.LSTM(o["emb"], o["rnn"], batch_first=True)
        self.generator = nn.Sequential(nn.Linear(o["rnn"], o["tgt_vocab"]), nn.LogSoftmax(dim=-1))

    def forward(self, src, tgt_in):
        _, state = self.encoder(self.src_emb(src))
        dec_out, _ = self.decoder(self.tgt_emb(tgt_in), state)
        return self.generator(dec_out)


def make_batch(o):
    src = torch.randint(1, o["src_vocab"], (o["batch"], o["seq"]))
    tgt = torch.randint(1, o["tgt_vocab"], (o["batch"], o["seq"] + 1))
    return src, tgt


class Trainer:
    def __init__(self, model, optim, opts):
        self.model, self.optim, self.opts = model, optim, opts
        self.valid_outputs = []

    def _stats(self, log_probs, gold):
        loss = F.nll_loss(log_probs.reshape(-1, log_probs.size(-1)), gold.reshape(-1), reduction="sum")
        correct = (log_probs.argmax(-1) == gold).sum().item()
        return loss, Statistics(loss.item(), gold.numel(), correct)

    def train_step(self, batch):
        self.model.train()
        src, tgt = batch
        self.optim.zero_grad()
        log_probs = self.model(src, tgt[:, :-1])
        loss, stats = self._stats(log_probs, tgt[:, 1:])
        (loss / tgt.size(0)).backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), self.opts["max_grad_norm"])
        self.optim.step()
        return stats

    def validate(self, valid_iter):
        self.model.eval()
        stats = Statistics()
        self.valid_outputs = []
        with torch.no_grad():  # fixed: GG204
            for src, tgt in valid_iter:
                log_probs = self.model(src, tgt[:, :-1])
                _, batch_stats = self._stats(log_probs, tgt[:, 1:])
                stats.update(batch_stats)
                self.valid_outputs.append(log_probs)
        self.model.train()
        return stats


def main(argv=None):
    torch.manual_seed(0)
    model = TinyNMT(OPTS)
    trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=OPTS["lr"]), OPTS)
    for step in range(OPTS["train_steps"]):
        s = trainer.train_step(make_batch(OPTS))
        print(f"step {step} ppl {s.ppl():.2f}")
    valid_iter = [make_batch(OPTS) for _ in range(OPTS["valid_batches"])]
    vs = trainer.validate(valid_iter)
    print(f"valid ppl {vs.ppl():.2f} acc {vs.accuracy():.1f}")
    return trainer


if __name__ == "__main__":
    trainer = main([])
    assert not any(o.requires_grad for o in trainer.valid_outputs)
    print("FIXED: ok")
