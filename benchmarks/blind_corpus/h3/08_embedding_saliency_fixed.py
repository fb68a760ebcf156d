"""GG401 - fixed version.

The embedding output already requires grad (it is computed from the
trainable table); the helper just calls retain_grad() on it instead of
trying to set requires_grad.
"""
import math
import sys

import torch
import torch.nn as nn


class GRUClassifier(nn.Module):
    def __init__(self, vocab=100, dim=16, hidden=24, n_classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.scale = math.sqrt(dim)
        self.gru = nn.GRU(dim, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, n_classes)

    def embed_tokens(self, tokens):
        return self.embed(tokens) * self.scale

    def classify(self, emb):
        _, h = self.gru(emb)
        return self.fc(h[-1])

    def forward(self, tokens):
        return self.classify(self.embed_tokens(tokens))


def train(model, data, epochs=2, lr=1e-2):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    crit = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        for tokens, labels in data:
            loss = crit(model(tokens), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


def token_saliency(model, tokens, target):
    model.eval()
    emb = model.embed_tokens(tokens)
    emb.retain_grad()  # fixed: GG401
    logits = model.classify(emb)
    logits.gather(1, target[:, None]).sum().backward()
    return emb.grad.norm(dim=-1)


def main():
    torch.manual_seed(0)
    model = GRUClassifier()
    data = [(torch.randint(0, 100, (8, 10)), torch.randint(0, 3, (8,))) for _ in range(3)]
    train(model, data)
    tokens, labels = data[0]
    scores = token_saliency(model, tokens, labels)
    top = scores.argmax(dim=1)
    print("most salient positions:", top.tolist())


if __name__ == "__main__":
    main()
    print("FIXED: ok")
