"""GG401 - requires_grad set on a tensor computed from tensors that require grad.

To get per-token saliency scores, an interpretability helper takes the
(scaled) embedding output of a GRU text classifier and flips
`requires_grad = True` on it so it can read its gradient later.  The
embedding output is produced by the trainable embedding table, so it is
not a leaf and autograd refuses:
RuntimeError: you can only change requires_grad flags of leaf variables.
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
    emb.requires_grad = True  # bug: GG401
    emb.retain_grad()
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
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
