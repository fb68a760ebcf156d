"""GG201 look-alike: GRU decoder state carried from step to step, no .detach().

A toy sequence-to-sequence model (GRU encoder, GRU-cell decoder with teacher
forcing).  Inside ``train_batch`` the decoder hidden state is fed back into the
next time step without ``.detach()``, which looks like the classic carried-state
bug.  It is correct: the time loop stays inside one batch, the whole unrolled
sequence is one graph, ``backward()`` runs once after the loop, and every batch
starts a new hidden state from the encoder.  Nothing survives into the next
iteration of the DataLoader loop.
Modelled on: none (counter-example to https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "vocab": 20,
    "emb": 12,
    "hidden": 24,
    "src_len": 7,
    "tgt_len": 6,
    "batch_size": 8,
    "lr": 1e-2,
    "epochs": 2,
    "bos": 1,
}


class Encoder(nn.Module):
    def __init__(self, vocab, emb, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.gru = nn.GRU(emb, hidden, batch_first=True)

    def forward(self, src):
        _, h = self.gru(self.embed(src))
        return h.squeeze(0)


class Decoder(nn.Module):
    def __init__(self, vocab, emb, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.cell = nn.GRUCell(emb, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, token, hidden):
        hidden = self.cell(self.embed(token), hidden)
        return self.out(hidden), hidden


def train_batch(encoder, decoder, src, tgt, optimizer, bos):
    optimizer.zero_grad()
    hidden = encoder(src)
    token = torch.full((src.size(0),), bos, dtype=torch.long)
    loss = 0.0
    for t in range(tgt.size(1)):
        logits, hidden = decoder(token, hidden)
        loss = loss + F.cross_entropy(logits, tgt[:, t])
        token = tgt[:, t]  # teacher forcing
    loss = loss / tgt.size(1)
    loss.backward()
    optimizer.step()
    return loss.item()


def train(encoder, decoder, loader, optimizer, cfg):
    for epoch in range(cfg["epochs"]):
        epoch_loss = 0.0
        for step, (src, tgt) in enumerate(loader):
            epoch_loss += train_batch(encoder, decoder, src, tgt, optimizer, cfg["bos"])
        print(f"epoch {epoch}: loss {epoch_loss / (step + 1):.4f}")


def main():
    torch.manual_seed(0)
    cfg = CONFIG
    src = torch.randint(2, cfg["vocab"], (32, cfg["src_len"]))
    tgt = torch.randint(2, cfg["vocab"], (32, cfg["tgt_len"]))
    loader = DataLoader(TensorDataset(src, tgt), batch_size=cfg["batch_size"], shuffle=True)
    encoder = Encoder(cfg["vocab"], cfg["emb"], cfg["hidden"])
    decoder = Decoder(cfg["vocab"], cfg["emb"], cfg["hidden"])
    params = list(encoder.parameters()) + list(decoder.parameters())
    optimizer = torch.optim.Adam(params, lr=cfg["lr"])
    train(encoder, decoder, loader, optimizer, cfg)


if __name__ == "__main__":
    main()
    print("OK")
