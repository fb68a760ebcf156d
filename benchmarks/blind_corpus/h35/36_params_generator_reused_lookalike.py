"""Training helper that asks the model for its parameters several times.

Modelled on: https://theneuralbase.com/pytorch/learn/beginner/model-parameters-accessing-weights/ (counterpart)

Look-alike: parameter generators are iterated repeatedly (counting,
optimizer construction, gradient clipping, weight-norm logging), but every
use calls model.parameters() afresh, or iterates a list, so no generator
is consumed twice.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(10, 16), nn.ReLU())
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.backbone(x))


def trainable_params(model):
    return (p for p in model.parameters() if p.requires_grad)


def weight_norm(params):
    return torch.sqrt(sum((p.detach() ** 2).sum() for p in params)).item()


def main():
    torch.manual_seed(0)
    model = Net()
    for p in model.backbone.parameters():
        p.requires_grad = False
    n = sum(p.numel() for p in trainable_params(model))
    optimizer = torch.optim.SGD(trainable_params(model), lr=0.1)
    head_params = list(model.head.parameters())
    start = weight_norm(head_params)
    for _ in range(3):
        x, y = torch.randn(8, 10), torch.randint(0, 2, (8,))
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    assert n == 34 and weight_norm(head_params) != start
    assert len(optimizer.param_groups[0]["params"]) == 2


if __name__ == "__main__":
    main()
    print("OK")
