"""GG101 - backward() on a loss computed under torch.no_grad().

Category: GG101 (backward on a value built while grad mode was off).
The mistake: the loss-compute object used by run_epoch() always calls
loss.backward(), even when it is handed opt=None for validation.  The
validation pass is wrapped in torch.no_grad(), so the loss there has no
grad_fn and backward() fails with
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
This file: FIXED version - backward() and the step only run when an
optimizer was given, i.e. never inside the no_grad validation pass.
Modelled on: https://github.com/harvardnlp/annotated-transformer/issues/14
"""
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {"vocab": 11, "d_model": 16, "heads": 2, "layers": 1, "seq_len": 7,
          "batch": 8, "train_batches": 3, "val_batches": 2, "lr": 1e-3, "epochs": 1}


class Batch:
    """Holds a source/target pair and the shifted decoder input."""

    def __init__(self, src, tgt, pad=0):
        self.src = src
        self.tgt = tgt[:, :-1]
        self.tgt_y = tgt[:, 1:]
        self.ntokens = (self.tgt_y != pad).sum()


class Generator(nn.Module):
    def __init__(self, d_model, vocab):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab)

    def forward(self, x):
        return F.log_softmax(self.proj(x), dim=-1)


class EncoderDecoder(nn.Module):
    def __init__(self, vocab, d_model, heads, layers):
        super().__init__()
        self.src_embed = nn.Embedding(vocab, d_model)
        self.tgt_embed = nn.Embedding(vocab, d_model)
        self.core = nn.Transformer(d_model, heads, layers, layers,
                                   dim_feedforward=32, dropout=0.0, batch_first=True)
        self.generator = Generator(d_model, vocab)

    def forward(self, src, tgt):
        mask = self.core.generate_square_subsequent_mask(tgt.size(1))
        return self.core(self.src_embed(src), self.tgt_embed(tgt), tgt_mask=mask)


class SimpleLossCompute:
    """Applies the generator, computes the loss and (when training) updates."""

    def __init__(self, generator, criterion, opt=None):
        self.generator = generator
        self.criterion = criterion
        self.opt = opt

    def __call__(self, x, y, norm):
        x = self.generator(x)
        loss = self.criterion(x.contiguous().view(-1, x.size(-1)),
                              y.contiguous().view(-1)) / norm
        if self.opt is not None:
            loss.backward()  # fixed: GG101
            self.opt.step()
            self.opt.zero_grad()
        return loss.item() * norm


def data_gen(vocab, batch, n_batches, seq_len):
    for _ in range(n_batches):
        data = torch.randint(1, vocab, (batch, seq_len))
        data[:, 0] = 1
        yield Batch(data.clone(), data.clone())


def run_epoch(data_iter, model, loss_compute):
    start = time.time()
    total_tokens, total_loss = 0, 0.0
    for i, batch in enumerate(data_iter):
        out = model(batch.src, batch.tgt)
        loss = loss_compute(out, batch.tgt_y, batch.ntokens.float())
        total_loss += loss
        total_tokens += int(batch.ntokens)
        if i % 50 == 0:
            print(f"  step {i} loss/token {loss / float(batch.ntokens):.4f} "
                  f"({time.time() - start:.2f}s)")
    return total_loss / max(total_tokens, 1)


def main():
    torch.manual_seed(0)
    cfg = CONFIG
    model = EncoderDecoder(cfg["vocab"], cfg["d_model"], cfg["heads"], cfg["layers"])
    criterion = nn.NLLLoss(reduction="sum")
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    for epoch in range(cfg["epochs"]):
        model.train()
        run_epoch(data_gen(cfg["vocab"], cfg["batch"], cfg["train_batches"], cfg["seq_len"]),
                  model, SimpleLossCompute(model.generator, criterion, opt))
        model.eval()
        with torch.no_grad():
            val_loss = run_epoch(
                data_gen(cfg["vocab"], cfg["batch"], cfg["val_batches"], cfg["seq_len"]),
                model, SimpleLossCompute(model.generator, criterion, None))
        print(f"epoch {epoch}: val loss {val_loss:.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
