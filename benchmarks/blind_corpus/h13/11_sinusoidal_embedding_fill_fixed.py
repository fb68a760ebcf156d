"""Category GG301 - in-place operation on a leaf tensor that requires grad.

The transformer classifier builds its positional table as an ``nn.Embedding``
and then fills the embedding weight with sine/cosine values by slice
assignment. The weight is a leaf parameter with requires_grad=True, so the
in-place write into its view fails while the model is being constructed:
    RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
Modelled on: https://github.com/Atcold/NYU-DLSP20/issues/765
(This file: fixed version - the table is written under torch.no_grad().)
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

MODEL_CFG = {"num_layers": 1, "d_model": 32, "num_heads": 2, "conv_hidden_dim": 64,
             "input_vocab_size": 100, "num_answers": 2, "max_position_embeddings": 40}


def create_sinusoidal_embeddings(nb_p, dim, E):
    theta = np.array([[p / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
                      for p in range(nb_p)])
    with torch.no_grad():  # fixed: GG301
        E[:, 0::2] = torch.FloatTensor(np.sin(theta[:, 0::2]))
        E[:, 1::2] = torch.FloatTensor(np.cos(theta[:, 1::2]))
    E.detach_()
    E.requires_grad = False


class Embeddings(nn.Module):
    def __init__(self, d_model, vocab_size, max_position_embeddings):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, d_model, padding_idx=1)
        self.position_embeddings = nn.Embedding(max_position_embeddings, d_model)
        create_sinusoidal_embeddings(max_position_embeddings, d_model,
                                     self.position_embeddings.weight)
        self.layer_norm = nn.LayerNorm(d_model, eps=1e-12)

    def forward(self, input_ids):
        pos = torch.arange(input_ids.size(1)).unsqueeze(0).expand_as(input_ids)
        return self.layer_norm(self.word_embeddings(input_ids) + self.position_embeddings(pos))


class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, conv_hidden_dim):
        super().__init__()
        self.mha = nn.MultiheadAttention(d_model, num_heads, batch_first=True)
        self.ffn = nn.Sequential(nn.Linear(d_model, conv_hidden_dim), nn.ReLU(),
                                 nn.Linear(conv_hidden_dim, d_model))
        self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)

    def forward(self, x):
        attn, _ = self.mha(x, x, x)
        x = self.ln1(x + attn)
        return self.ln2(x + self.ffn(x))


class TransformerClassifier(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, conv_hidden_dim, input_vocab_size,
                 num_answers, max_position_embeddings):
        super().__init__()
        self.embed = Embeddings(d_model, input_vocab_size, max_position_embeddings)
        self.layers = nn.ModuleList([EncoderLayer(d_model, num_heads, conv_hidden_dim)
                                     for _ in range(num_layers)])
        self.dense = nn.Linear(d_model, num_answers)

    def forward(self, x):
        x = self.embed(x)
        for layer in self.layers:
            x = layer(x)
        return self.dense(x.max(dim=1)[0])


def train(model, batches, optimizer):
    model.train()
    for step, (ids, labels) in enumerate(batches):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(ids), labels)
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f} ppl {math.exp(loss.item()):.2f}")


def main(argv=None):
    torch.manual_seed(0)
    model = TransformerClassifier(**MODEL_CFG)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = [(torch.randint(2, 100, (4, 12)), torch.randint(0, 2, (4,))) for _ in range(3)]
    train(model, batches, optimizer)
    return model


if __name__ == "__main__":
    main([])
    print("FIXED: ok")
