"""Embedding inspector extension: dump a token's embedding vector and its nearest tokens.

Modelled on: https://github.com/tkalayci71/embedding-inspector/issues/22

The web-UI extension looks a word up in the text encoder's token embedding table and
writes the vector out for plotting (``plt.plot(x.numpy(), emb_vec[u].numpy())``). The
embedding table is an ``nn.Embedding`` weight, i.e. a leaf tensor with requires_grad=True,
and indexing it outside ``no_grad`` gives a tensor that still requires grad. Calling
``.numpy()`` on it raises "Can't call numpy() on Tensor that requires grad".
"""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn


class Tokenizer:
    def __init__(self, vocab):
        self.vocab = {w: i for i, w in enumerate(vocab)}
        self.inv = {i: w for w, i in self.vocab.items()}

    def encode(self, text):
        return [self.vocab[t] for t in text.lower().split() if t in self.vocab]

    def decode(self, idx):
        return self.inv[int(idx)]


class TextEncoder(nn.Module):
    def __init__(self, vocab_size, dim):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids):
        return self.proj(self.token_embedding(ids))


class EmbeddingInspector:
    def __init__(self, encoder, tokenizer, out_dir):
        self.encoder = encoder
        self.tokenizer = tokenizer
        self.out_dir = out_dir

    def get_embedding_table(self):
        return self.encoder.token_embedding.weight

    def nearest(self, vec, table, k=3):
        sims = torch.nn.functional.cosine_similarity(table, vec.unsqueeze(0), dim=1)
        return sims.topk(k)

    def save_plot_data(self, name, xs, ys):
        path = os.path.join(self.out_dir, f"{name}.csv")
        np.savetxt(path, np.stack([xs, ys], axis=1), delimiter=",")
        return path

    def do_inspect(self, text):
        ids = self.tokenizer.encode(text)
        table = self.get_embedding_table()
        emb_vec = table[torch.tensor(ids)]
        report = []
        x = torch.arange(emb_vec.shape[1], dtype=torch.float32)
        for u, token_id in enumerate(ids):
            vals, idx = self.nearest(emb_vec[u], table)
            names = [self.tokenizer.decode(i) for i in idx]
            ys = emb_vec[u].numpy()  # bug: GG502
            path = self.save_plot_data(self.tokenizer.decode(token_id), x.numpy(), ys)
            report.append((self.tokenizer.decode(token_id), names, path))
        return report


def build():
    torch.manual_seed(0)
    vocab = ["cat", "dog", "car", "tree", "house", "river", "sky", "blue"]
    return TextEncoder(len(vocab), 12), Tokenizer(vocab)


if __name__ == "__main__":
    encoder, tok = build()
    with tempfile.TemporaryDirectory() as tmp:
        inspector = EmbeddingInspector(encoder, tok, tmp)
        try:
            inspector.do_inspect("blue cat")
            print("no error")
        except RuntimeError as err:
            print(f"BUGGY: {err}")
