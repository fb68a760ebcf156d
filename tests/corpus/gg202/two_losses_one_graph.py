"""Multi-task model: two heads share a trunk, each loss backpropagated on its own."""

import torch
from torch import nn


class MultiTask(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Linear(10, 16)
        self.cls = nn.Linear(16, 4)
        self.reg = nn.Linear(16, 1)

    def forward(self, x):
        shared = torch.relu(self.trunk(x))
        return self.cls(shared), self.reg(shared)


def train() -> None:
    model = MultiTask()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(32, 10)
    target_cls = torch.randint(0, 4, (32,))
    target_reg = torch.randn(32, 1)
    for epoch in range(5):
        optimizer.zero_grad()
        shared = torch.relu(model.trunk(x))
        loss_cls = nn.functional.cross_entropy(model.cls(shared), target_cls)
        loss_reg = nn.functional.mse_loss(model.reg(shared), target_reg)
        loss_cls.backward()  # expect: GG202
        loss_reg.backward()
        optimizer.step()


if __name__ == "__main__":
    train()
