"""Look-alikes of a network made by a factory function: each optimizer here does train
what its loss runs, or which module the factory hands out is not certain."""

import torch
import torch.nn.functional as F
from torch import nn

BACKBONE = nn.Linear(16, 16)


def make_head(n_out):
    return nn.Sequential(nn.ReLU(), nn.Linear(16, n_out))


def shared_backbone():
    # Every call hands out the same module: "two" networks are one.
    net = BACKBONE
    return net


def wrapped(core):
    # The result holds the module it is given.
    return nn.Sequential(core, nn.Linear(16, 4))


def distill_into_the_right_student():
    teacher = make_head(4)
    student = make_head(4)
    optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
    for _ in range(3):
        x = torch.randn(8, 16)
        with torch.no_grad():
            target = teacher(x)
        loss = F.mse_loss(student(x), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def same_module_twice():
    online = shared_backbone()
    copy_of_online = shared_backbone()
    optimizer = torch.optim.SGD(online.parameters(), lr=0.1)
    for _ in range(3):
        x = torch.randn(8, 16)
        with torch.no_grad():
            target = online(x)
        loss = F.mse_loss(copy_of_online(x), target.flip(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def student_wraps_the_optimized_core():
    core = make_head(16)
    model = wrapped(core)
    optimizer = torch.optim.SGD(core.parameters(), lr=0.1)
    for _ in range(3):
        x = torch.randn(8, 16)
        with torch.no_grad():
            baseline = core(x)[:, :4]
        loss = F.mse_loss(model(x), baseline)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
