"""Softmax probabilities handed to cross_entropy, which applies log_softmax itself.

Modelled on the recurring forum question "my classifier's loss is stuck around 1.5 and the
accuracy barely moves" (discuss.pytorch.org threads on "softmax before CrossEntropyLoss",
and the note in the `nn.CrossEntropyLoss` documentation that the input is expected to
contain unnormalized logits): the model ends with `nn.Softmax` or the loop calls
`F.softmax` before the loss. Written in this project's own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class MnistNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3)
        self.fc1 = nn.Linear(8 * 26 * 26, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv(x))
        x = x.view(x.size(0), -1)
        x = F.relu(self.fc1(x))
        return F.softmax(self.fc2(x), dim=1)


def train_mnist(loader):
    model = MnistNet()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters())
    for images, labels in loader:
        optimizer.zero_grad()
        outputs = model(images)
        loss = criterion(outputs, labels)  # expect: GG110
        loss.backward()
        optimizer.step()


def train_mlp(loader):
    net = nn.Sequential(
        nn.Linear(20, 64),
        nn.ReLU(),
        nn.Linear(64, 5),
        nn.Softmax(dim=1),
    )
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    for features, target in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(net(features), target)  # expect: GG110
        loss.backward()
        optimizer.step()


def train_head(backbone_features, labels):
    head = nn.Linear(128, 4)
    probs = head(backbone_features).softmax(dim=-1)
    loss = F.cross_entropy(probs, labels)  # expect: GG110
    loss.backward()
    return probs


def train_tokens(tokens, labels):
    proj = nn.Linear(32, 100)
    logits = proj(tokens)
    scores = torch.softmax(logits, dim=-1).view(-1, 100)
    loss = F.cross_entropy(input=scores, target=labels.view(-1))  # expect: GG110
    loss.backward()
