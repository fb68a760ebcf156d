"""Optimizers whose losses do reach their parameters, or where that is not certain.

Real-code shapes: a DCGAN loop with both optimizers right, a fine-tuned head optimizer
(`model.head.parameters()` while the loss runs the whole model), an EMA copy updated under
no_grad (the usual weight-EMA pattern), a frozen
teacher in distillation, a backbone wrapped by the trained model, param groups and
`itertools.chain` over two models, a model handed to a helper.
"""

import copy
import itertools

import torch
from torch import nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 16)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


def gan_right():
    netG = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    netD = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4)
    optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)
    criterion = nn.BCEWithLogitsLoss()
    for _ in range(3):
        netD.zero_grad()
        real = torch.randn(8, 8)
        errD_real = criterion(netD(real), torch.ones(8, 1))
        errD_real.backward()
        fake = netG(torch.randn(8, 4))
        errD_fake = criterion(netD(fake.detach()), torch.zeros(8, 1))
        errD_fake.backward()
        optimizerD.step()
        netG.zero_grad()
        errG = criterion(netD(fake), torch.ones(8, 1))
        errG.backward()
        optimizerG.step()


def head_only():
    model = Net()
    optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1)
    for _ in range(3):
        loss = F.cross_entropy(model(torch.randn(4, 8)), torch.randint(0, 3, (4,)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def ema_copy():
    model = Net()
    ema = copy.deepcopy(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(3):
        loss = F.cross_entropy(model(torch.randn(4, 8)), torch.randint(0, 3, (4,)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            for e, p in zip(ema.parameters(), model.parameters()):
                e.mul_(0.999).add_(p, alpha=0.001)
    return ema


def distill():
    teacher = Net()
    teacher.eval()
    student = Net()
    optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
    for _ in range(3):
        x = torch.randn(4, 8)
        with torch.no_grad():
            soft = F.softmax(teacher(x) / 2.0, dim=1)
        loss = F.kl_div(F.log_softmax(student(x) / 2.0, dim=1), soft, reduction="batchmean")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def wrapped_backbone():
    backbone = nn.Linear(8, 16)
    model = nn.Sequential(backbone, nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(backbone.parameters(), lr=0.1)
    for _ in range(3):
        loss = model(torch.randn(4, 8)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def groups_and_chain():
    a = Net()
    b = Net()
    grouped = torch.optim.SGD([{"params": a.parameters()}, {"params": b.parameters()}], lr=0.1)
    chained = torch.optim.SGD(itertools.chain(a.parameters(), b.parameters()), lr=0.1)
    for _ in range(3):
        loss = b(torch.randn(4, 8)).pow(2).mean()
        grouped.zero_grad()
        chained.zero_grad()
        loss.backward()
        grouped.step()
        chained.step()


def forward_through(model, x):
    return model(x)


def through_a_helper():
    model = Net()
    other = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = forward_through(model, torch.randn(4, 8)).pow(2).mean()
        loss = loss + other(torch.randn(4, 8)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def copy_loaded_from_state():
    model = Net()
    shadow = Net()
    shadow.load_state_dict(model.state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = model(torch.randn(4, 8)).pow(2).mean() + shadow(torch.randn(4, 8)).sum() * 0
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    gan_right()
    head_only()
    ema_copy()
    distill()
    wrapped_backbone()
    groups_and_chain()
    through_a_helper()
    copy_loaded_from_state()
