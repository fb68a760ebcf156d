"""GG604 - optimizer built before the resume code replaces a sub-module of the model.

Mistake: train.py builds the Tacotron-like model, creates the Adam optimizer
from model.parameters(), and only then calls load_checkpoint(). When the
checkpoint was trained with a different symbol set, the helper swaps in a new
nn.Embedding. The optimizer still holds the old embedding's tensors, so the new
embedding gets gradients but is never updated.
Silent effect: after several steps the character embedding is bit-for-bit
unchanged while the rest of the model trains.

Modelled on: https://github.com/r9y9/tacotron_pytorch/issues/18
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

hparams = dict(n_vocab=30, embedding_dim=16, hidden=24, num_mels=8,
               lr=2e-3, steps=4, batch_size=4, text_len=10)


class Tacotron(nn.Module):
    def __init__(self, n_vocab, embedding_dim, hidden, num_mels):
        super().__init__()
        self.embedding = nn.Embedding(n_vocab, embedding_dim)
        self.encoder = nn.GRU(embedding_dim, hidden, batch_first=True, bidirectional=True)
        self.decoder = nn.GRU(2 * hidden, hidden, batch_first=True)
        self.mel_proj = nn.Linear(hidden, num_mels)

    def forward(self, text):
        enc, _ = self.encoder(self.embedding(text))
        dec, _ = self.decoder(enc)
        return self.mel_proj(dec)


def save_checkpoint(model, optimizer, step, path):
    torch.save({"state_dict": model.state_dict(), "optimizer": optimizer.state_dict(),
                "global_step": step}, path)


def load_checkpoint(path, model):
    ckpt = torch.load(path)
    ckpt_vocab = ckpt["state_dict"]["embedding.weight"].shape[0]
    if ckpt_vocab != model.embedding.num_embeddings:
        print(f"symbol set changed: {model.embedding.num_embeddings} -> {ckpt_vocab}")
        model.embedding = nn.Embedding(ckpt_vocab, model.embedding.embedding_dim)  # bug: GG604
    model.load_state_dict(ckpt["state_dict"])
    return ckpt["global_step"]


def make_pretrained_checkpoint(path):
    """Pretend an earlier run (with 34 symbols) left this file behind."""
    old = Tacotron(34, hparams["embedding_dim"], hparams["hidden"], hparams["num_mels"])
    opt = torch.optim.Adam(old.parameters())
    save_checkpoint(old, opt, 1000, path)


def train(model, optimizer, n_vocab, start_step):
    model.train()
    for step in range(start_step, start_step + hparams["steps"]):
        text = torch.randint(0, n_vocab, (hparams["batch_size"], hparams["text_len"]))
        mel_target = torch.randn(hparams["batch_size"], hparams["text_len"], hparams["num_mels"])
        optimizer.zero_grad()
        loss = F.l1_loss(model(text), mel_target)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    tmp = tempfile.mkdtemp()
    ckpt_path = os.path.join(tmp, "checkpoint_step1000.pth")
    make_pretrained_checkpoint(ckpt_path)

    model = Tacotron(hparams["n_vocab"], hparams["embedding_dim"], hparams["hidden"], hparams["num_mels"])
    optimizer = torch.optim.Adam(model.parameters(), lr=hparams["lr"])
    start_step = load_checkpoint(ckpt_path, model)

    emb_before = model.embedding.weight.detach().clone()
    train(model, optimizer, model.embedding.num_embeddings, start_step)
    return torch.equal(emb_before, model.embedding.weight.detach())


if __name__ == "__main__":
    unchanged = main()
    try:
        assert not unchanged, "embedding replaced after the optimizer was built never changes"
    except AssertionError as e:
        print(f"BUGGY: {e}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
