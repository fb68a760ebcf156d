"""Category GG203 look-alike - loss tensors summed with += on purpose, inside one step.

A seq2seq-style decoder adds the loss of every time step into ``loss`` with
``+=`` on tensors. That total is *meant* to carry the graph: backward() is
called on it at the end of the same batch and the epoch statistics are kept as
floats. Nothing survives across iterations. No error; prints OK.
Modelled on: https://github.com/spro/practical-pytorch/pull/29
"""
import random

import torch
import torch.nn as nn

SETTINGS = {"vocab": 30, "hidden": 32, "max_len": 6, "batch": 4, "lr": 0.01,
            "teacher_forcing": 0.5, "n_batches": 4, "clip": 5.0}
SOS = 0


class Encoder(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.emb = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, src):
        _, h = self.gru(self.emb(src))
        return h


class Decoder(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.emb = nn.Embedding(vocab, hidden)
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, token, h):
        h = self.cell(self.emb(token), h)
        return self.out(h), h


def train_batch(src, tgt, encoder, decoder, enc_opt, dec_opt, criterion, cfg):
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    h = encoder(src)[0]
    token = torch.full((src.size(0),), SOS, dtype=torch.long)
    loss = 0
    for t in range(tgt.size(1)):
        logits, h = decoder(token, h)
        loss += criterion(logits, tgt[:, t])
        use_tf = random.random() < cfg["teacher_forcing"]
        token = tgt[:, t] if use_tf else logits.argmax(1)
    loss.backward()
    nn.utils.clip_grad_norm_(list(encoder.parameters()) + list(decoder.parameters()), cfg["clip"])
    enc_opt.step()
    dec_opt.step()
    return loss.item() / tgt.size(1)


def main():
    random.seed(0)
    torch.manual_seed(0)
    cfg = SETTINGS
    encoder, decoder = Encoder(cfg["vocab"], cfg["hidden"]), Decoder(cfg["vocab"], cfg["hidden"])
    enc_opt = torch.optim.SGD(encoder.parameters(), lr=cfg["lr"])
    dec_opt = torch.optim.SGD(decoder.parameters(), lr=cfg["lr"])
    criterion = nn.CrossEntropyLoss()
    epoch_loss = 0.0
    for b in range(cfg["n_batches"]):
        src = torch.randint(1, cfg["vocab"], (cfg["batch"], cfg["max_len"]))
        tgt = torch.randint(1, cfg["vocab"], (cfg["batch"], cfg["max_len"]))
        epoch_loss += train_batch(src, tgt, encoder, decoder, enc_opt, dec_opt, criterion, cfg)
    assert isinstance(epoch_loss, float)
    print(f"mean loss {epoch_loss / cfg['n_batches']:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
