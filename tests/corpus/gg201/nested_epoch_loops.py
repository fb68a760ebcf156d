"""State reset per epoch but carried across the batches of an epoch (GG201)."""

import torch
from torch import nn

gru = nn.GRU(4, 8, batch_first=True)
head = nn.Linear(8, 2)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam([*gru.parameters(), *head.parameters()], lr=1e-3)


def train(epochs, batches_per_epoch):
    for epoch in range(epochs):
        hidden = torch.zeros(1, 3, 8)
        for _ in range(batches_per_epoch):
            x = torch.randn(3, 10, 4)
            y = torch.randint(0, 2, (3,))
            output, hidden = gru.forward(x, hidden)  # expect: GG201
            loss = criterion(head(output[:, -1]), y)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(gru.parameters(), 1.0)
            optimizer.step()


def train_until_converged():
    hidden = torch.zeros(1, 3, 8)
    step = 0
    while True:
        x = torch.randn(3, 10, 4)
        y = torch.randint(0, 2, (3,))
        output, hidden = gru(x, hidden)  # expect: GG201
        loss = criterion(head(output[:, -1]), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        if loss.item() < 0.1 or step > 100:
            break
