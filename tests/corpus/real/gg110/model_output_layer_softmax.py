"""A question-answering model (transformer encoder + graph network) whose output layer ends
with a softmax while training uses `nn.CrossEntropyLoss`, which applies log-softmax itself:
the double softmax flattens the scores and weakens the gradient. The authors removed the
extra softmax; the output layer is a linear layer returning scores.

Source (rewritten in our own words, structure kept): https://github.com/bowang-lab/Transformer-GCN-QA/pull/32
- a module with an `nn.Sequential` output head, trained in a function given the model.
"""

import torch
from torch import nn


class CandidateScorer(nn.Module):
    def __init__(self, dim: int = 10, candidates: int = 5) -> None:
        super().__init__()
        self.encoder = nn.Linear(dim, 16)
        self.output = nn.Sequential(nn.Linear(16, candidates), nn.Softmax(dim=-1))

    def forward(self, x):
        return self.output(torch.relu(self.encoder(x)))


class FixedCandidateScorer(nn.Module):
    def __init__(self, dim: int = 10, candidates: int = 5) -> None:
        super().__init__()
        self.encoder = nn.Linear(dim, 16)
        self.output = nn.Linear(16, candidates)

    def forward(self, x):
        return self.output(torch.relu(self.encoder(x)))


def train(model, batches, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        for x, answer in batches:
            optimizer.zero_grad()
            loss = criterion(model(x), answer)  # expect: GG110
            loss.backward()
            optimizer.step()


def train_scorer(batches):
    model = CandidateScorer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, answer in batches:
        optimizer.zero_grad()
        loss = criterion(model(x), answer)  # expect: GG110
        loss.backward()
        optimizer.step()


def train_fixed_scorer(batches):
    model = FixedCandidateScorer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, answer in batches:
        optimizer.zero_grad()
        loss = criterion(model(x), answer)
        loss.backward()
        optimizer.step()


data = [(torch.randn(3, 10), torch.randint(0, 5, (3,))) for _ in range(2)]
train(CandidateScorer(), data, 1)
train_scorer(data)
train_fixed_scorer(data)
