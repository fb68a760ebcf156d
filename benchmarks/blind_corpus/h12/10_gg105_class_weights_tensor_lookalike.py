"""GG105 look-alike - torch.tensor(...) built from plain Python numbers.

Class weights are computed from label counts and wrapped with torch.tensor(),
per-sample targets are assembled from Python lists with torch.tensor(), and the
per-head losses are combined with torch.stack(). None of the torch.tensor()
calls receives a tensor with autograd history, so nothing is cut. Correct code.

Modelled on: none found (class-balanced loss setup).
"""
from collections import Counter
import torch
import torch.nn as nn
import torch.nn.functional as F

SETTINGS = {"vocab": 50, "emb": 16, "hidden": 32, "classes": 3, "lr": 5e-3, "steps": 6}


def make_corpus(n=40, seed=5):
    g = torch.Generator().manual_seed(seed)
    docs = [torch.randint(1, SETTINGS["vocab"], (int(torch.randint(4, 10, (1,), generator=g)),), generator=g).tolist()
            for _ in range(n)]
    labels = [int(x) for x in torch.randint(0, SETTINGS["classes"], (n,), generator=g)]
    return docs, labels


def class_weights(labels, num_classes):
    counts = Counter(labels)
    weights = [len(labels) / (num_classes * max(counts.get(c, 0), 1)) for c in range(num_classes)]
    return torch.tensor(weights, dtype=torch.float32)


def collate(docs, labels):
    max_len = max(len(d) for d in docs)
    padded = [d + [0] * (max_len - len(d)) for d in docs]
    return torch.tensor(padded), torch.tensor(labels)


class BagClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(SETTINGS["vocab"], SETTINGS["emb"], padding_idx=0)
        self.rnn = nn.GRU(SETTINGS["emb"], SETTINGS["hidden"], batch_first=True)
        self.main_head = nn.Linear(SETTINGS["hidden"], SETTINGS["classes"])
        self.aux_head = nn.Linear(SETTINGS["hidden"], SETTINGS["classes"])

    def forward(self, tokens):
        _, h = self.rnn(self.emb(tokens))
        h = h[-1]
        return self.main_head(h), self.aux_head(h)


def compute_loss(model, tokens, targets, weights):
    main_logits, aux_logits = model(tokens)
    parts = [F.cross_entropy(main_logits, targets, weight=weights),
             F.cross_entropy(aux_logits, targets)]
    mix = torch.tensor([1.0, 0.3])
    return (torch.stack(parts) * mix).sum()


def main():
    torch.manual_seed(5)
    docs, labels = make_corpus()
    weights = class_weights(labels, SETTINGS["classes"])
    model = BagClassifier()
    opt = torch.optim.Adam(model.parameters(), lr=SETTINGS["lr"])
    before = model.main_head.weight.detach().clone()
    for step in range(SETTINGS["steps"]):
        idx = torch.randperm(len(docs))[:8].tolist()
        tokens, targets = collate([docs[i] for i in idx], [labels[i] for i in idx])
        loss = compute_loss(model, tokens, targets, weights)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: {loss.item():.4f}")
    assert not torch.equal(before, model.main_head.weight)


if __name__ == "__main__":
    main()
    print("OK")
