"""A model whose forward returns a dict holding both logits and probabilities, and a loss
helper that picks the probabilities for `F.cross_entropy`.

`cross_entropy` applies `log_softmax` itself, so the loss sees softmax twice: it runs, but
its gradient vanishes as the probabilities saturate and training converges worse (with
torch 2.13.0 the loss of the model below stays above the loss computed on the logits).
Found by a blind corpus a helper wrote for the team (an attention-pooling classifier).
"""

import torch
import torch.nn.functional as F
from torch import nn


class Pooler(nn.Module):
    def __init__(self, dim=8, n_classes=4):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, tokens):
        logits = self.head(self.norm(tokens).mean(dim=1))
        return {"logits": logits, "probs": F.softmax(logits, dim=-1)}


def loss_on_probabilities(out, targets):
    return F.cross_entropy(out["probs"], targets)  # expect: GG110


def loss_on_logits(out, targets):
    return F.cross_entropy(out["logits"], targets)


def fit_on_probabilities(tokens, targets):
    model = Pooler()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(20):
        optimizer.zero_grad()
        loss = loss_on_probabilities(model(tokens), targets)
        loss.backward()
        optimizer.step()
    return F.cross_entropy(model(tokens)["logits"], targets).item()


def fit_on_logits(tokens, targets):
    model = Pooler()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(20):
        optimizer.zero_grad()
        loss = loss_on_logits(model(tokens), targets)
        loss.backward()
        optimizer.step()
    return F.cross_entropy(model(tokens)["logits"], targets).item()


if __name__ == "__main__":
    torch.manual_seed(0)
    labels = torch.randint(0, 4, (32,))
    data = torch.randn(32, 5, 8) + torch.randn(4, 1, 8)[labels] * 2
    torch.manual_seed(1)
    worse = fit_on_probabilities(data, labels)
    torch.manual_seed(1)
    better = fit_on_logits(data, labels)
    assert worse > better, (worse, better)
