"""A recommender library whose point-wise models end `forward` with `torch.sigmoid` while
the training loop's criterion is `nn.BCEWithLogitsLoss`, which applies the sigmoid itself:
the scores are squashed twice, the loss stays in a narrow band and does not converge. The
fix removes the sigmoid from the model (it is applied at prediction time only).

Source (rewritten in our own words, structure kept): https://github.com/yudi-mars/daisyRec/pull/15
- a matrix-factorisation module with user and item embeddings, a `fit(train_loader)` method
on the model holding its own optimiser and criterion.
"""

import torch
from torch import nn


class PointMF(nn.Module):
    def __init__(self, users: int = 6, items: int = 8, factors: int = 4) -> None:
        super().__init__()
        self.embed_user = nn.Embedding(users, factors)
        self.embed_item = nn.Embedding(items, factors)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.1)
        self.criterion = nn.BCEWithLogitsLoss()

    def forward(self, user, item):
        pred = (self.embed_user(user) * self.embed_item(item)).sum(dim=-1)
        return torch.sigmoid(pred)

    def fit(self, train_loader, epochs):
        for epoch in range(epochs):
            for user, item, label in train_loader:
                self.optimizer.zero_grad()
                prediction = self.forward(user, item)
                loss = self.criterion(prediction, label)  # expect: GG111
                loss.backward()
                self.optimizer.step()


class PointMFLogits(nn.Module):
    def __init__(self, users: int = 6, items: int = 8, factors: int = 4) -> None:
        super().__init__()
        self.embed_user = nn.Embedding(users, factors)
        self.embed_item = nn.Embedding(items, factors)

    def forward(self, user, item):
        return (self.embed_user(user) * self.embed_item(item)).sum(dim=-1)

    def predict(self, user, item):
        return torch.sigmoid(self.forward(user, item))


def fit(train_loader):
    """The loop outside the model, as most scripts write it."""
    model = PointMF()
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for user, item, label in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(user, item), label)  # expect: GG111
        loss.backward()
        optimizer.step()


def fit_logits(train_loader):
    model = PointMFLogits()
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for user, item, label in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(user, item), label)
        loss.backward()
        optimizer.step()
    return model.predict(user, item)


data = [(torch.randint(0, 6, (5,)), torch.randint(0, 8, (5,)), torch.randint(0, 2, (5,)).float())]
PointMF().fit(data, 1)
fit(data)
fit_logits(data)
