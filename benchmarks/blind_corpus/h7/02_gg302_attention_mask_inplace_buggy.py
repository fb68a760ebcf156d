"""GG302 - in-place change of a tensor saved for backward, before backward().

Mistake: a GRU encoder / attention decoder.  The decoder first scores the
encoder outputs with ``torch.bmm`` (which saves ``enc_out`` to compute the
gradient of the query), then zeroes the padded time steps of ``enc_out`` with
``masked_fill_`` before building the context vector.  The in-place fill changes
a tensor autograd still needs.

torch raises: RuntimeError: one of the variables needed for gradient computation
has been modified by an inplace operation: [torch.FloatTensor [4, 7, 16]] ...
is at version N; expected version M instead.

Modelled on: https://github.com/facebookresearch/fairseq/issues/251
"""
import os
import tempfile
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    vocab: int = 20
    emb: int = 12
    hidden: int = 16
    src_len: int = 7
    tgt_len: int = 5
    batch: int = 4
    steps: int = 3
    lr: float = 3e-3
    device: str = "cpu"


class Encoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg.vocab, cfg.emb, padding_idx=0)
        self.rnn = nn.GRU(cfg.emb, cfg.hidden, batch_first=True)

    def forward(self, src):
        out, h = self.rnn(self.emb(src))
        return out, h


class AttnDecoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg.vocab, cfg.emb)
        self.cell = nn.GRUCell(cfg.emb + cfg.hidden, cfg.hidden)
        self.out = nn.Linear(cfg.hidden * 2, cfg.vocab)

    def attend(self, query, enc_out, pad_mask):
        scores = torch.bmm(enc_out, query.unsqueeze(2)).squeeze(2)
        scores = scores.masked_fill(pad_mask, -1e9)
        weights = F.softmax(scores, dim=1)
        enc_out.masked_fill_(pad_mask.unsqueeze(2), 0.0)  # bug: GG302
        context = torch.bmm(weights.unsqueeze(1), enc_out).squeeze(1)
        return context

    def forward(self, tgt_in, enc_out, h, pad_mask):
        h = h.squeeze(0)
        context = torch.zeros_like(h)
        logits = []
        for t in range(tgt_in.size(1)):
            x = torch.cat([self.emb(tgt_in[:, t]), context], dim=1)
            h = self.cell(x, h)
            context = self.attend(h, enc_out, pad_mask)
            logits.append(self.out(torch.cat([h, context], dim=1)))
        return torch.stack(logits, dim=1)


class Seq2SeqTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.device = torch.device(cfg.device)
        self.encoder = Encoder(cfg).to(self.device)
        self.decoder = AttnDecoder(cfg).to(self.device)
        params = list(self.encoder.parameters()) + list(self.decoder.parameters())
        self.optimizer = torch.optim.Adam(params, lr=cfg.lr)
        self.history = []

    def make_batch(self):
        c = self.cfg
        src = torch.randint(1, c.vocab, (c.batch, c.src_len))
        lengths = torch.randint(3, c.src_len + 1, (c.batch,))
        src[torch.arange(c.src_len)[None, :] >= lengths[:, None]] = 0
        tgt = torch.randint(1, c.vocab, (c.batch, c.tgt_len + 1))
        return src.to(self.device), tgt.to(self.device)

    def train_step(self, src, tgt):
        self.optimizer.zero_grad()
        pad_mask = src.eq(0)
        enc_out, h = self.encoder(src)
        logits = self.decoder(tgt[:, :-1], enc_out, h, pad_mask)
        loss = F.cross_entropy(logits.reshape(-1, self.cfg.vocab), tgt[:, 1:].reshape(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(self.decoder.parameters(), 1.0)
        self.optimizer.step()
        return loss.item()

    def fit(self):
        for step in range(self.cfg.steps):
            src, tgt = self.make_batch()
            self.history.append(self.train_step(src, tgt))
            print(f"step {step}: loss={self.history[-1]:.3f}")
        ckpt = os.path.join(tempfile.mkdtemp(), "seq2seq.pt")
        torch.save({"enc": self.encoder.state_dict(), "dec": self.decoder.state_dict()}, ckpt)


def main():
    torch.manual_seed(1)
    Seq2SeqTrainer(Config()).fit()


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
