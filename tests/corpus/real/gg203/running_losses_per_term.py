"""A visibility-estimation training script whose epoch loop sums three loss tensors
(`running_loss`, `running_loss_MSE`, `running_loss_cross_entropy`) for the progress log;
every sum keeps the graph of its batch, RAM grows until the job dies. The maintainer's
answer: change every `+= loss` into `+= loss.item()`; the reporter confirms it fixed it.

Source (rewritten in our own words, structure kept): https://github.com/samuelyu2002/ImVisible/issues/2
- a two-headed model (regression + classification), a combined loss, the totals printed
every N batches and reset.
"""

import torch
from torch import nn


class VisibilityNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.regressor = nn.Linear(16, 1)
        self.classifier = nn.Linear(16, 4)

    def forward(self, x):
        h = self.body(x)
        return self.regressor(h), self.classifier(h)


def train(model, batches, optimizer, epochs):
    mse = nn.MSELoss()
    cross_entropy = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        running_loss = 0.0
        running_loss_MSE = 0.0
        running_loss_cross_entropy = 0.0
        for i, (x, distance, label) in enumerate(batches):
            optimizer.zero_grad()
            pred_distance, pred_label = model(x)
            MSE = mse(pred_distance, distance)
            CE = cross_entropy(pred_label, label)
            loss = MSE + CE
            loss.backward()
            optimizer.step()
            running_loss += loss  # expect: GG203
            running_loss_MSE += MSE  # expect: GG203
            running_loss_cross_entropy += CE  # expect: GG203
            if i % 2 == 1:
                print(running_loss / 2, running_loss_MSE / 2, running_loss_cross_entropy / 2)
                running_loss = 0.0
                running_loss_MSE = 0.0
                running_loss_cross_entropy = 0.0


def train_fixed(model, batches, optimizer, epochs):
    mse = nn.MSELoss()
    cross_entropy = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        running_loss = 0.0
        running_loss_MSE = 0.0
        running_loss_cross_entropy = 0.0
        for i, (x, distance, label) in enumerate(batches):
            optimizer.zero_grad()
            pred_distance, pred_label = model(x)
            MSE = mse(pred_distance, distance)
            CE = cross_entropy(pred_label, label)
            loss = MSE + CE
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
            running_loss_MSE += MSE.item()
            running_loss_cross_entropy += CE.item()
            if i % 2 == 1:
                print(running_loss / 2, running_loss_MSE / 2, running_loss_cross_entropy / 2)
                running_loss = 0.0
                running_loss_MSE = 0.0
                running_loss_cross_entropy = 0.0


net = VisibilityNet()
opt = torch.optim.SGD(net.parameters(), lr=0.01)
data = [(torch.randn(4, 8), torch.randn(4, 1), torch.randint(0, 4, (4,))) for _ in range(4)]
train(net, data, opt, 1)
train_fixed(net, data, opt, 1)
