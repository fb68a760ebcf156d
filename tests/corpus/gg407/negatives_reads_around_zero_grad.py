"""`.grad` reads near a `zero_grad()` that are fine, or that the analysis cannot be sure of:
the reset leaves zeros (`set_to_none=False`), a backward (or a closure the optimizer runs)
fills the gradients before the read, the read is guarded, the optimizer holds other
tensors, or the reset is a method of the file's own class."""

import torch
from torch import nn

torch.manual_seed(0)
x, y = torch.randn(8, 4), torch.randn(8, 1)


def reset_keeps_zeros():
    net = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    net(x).sum().backward()
    for step in range(2):
        optimizer.zero_grad(set_to_none=False)
        norms = [p.grad.norm() for p in net.parameters()]
        nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
        print(norms)


def read_after_backward():
    net = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    for step in range(2):
        optimizer.zero_grad()
        nn.functional.mse_loss(net(x), y).backward()
        print(sum(p.grad.norm() for p in net.parameters()))
        optimizer.step()


def read_after_functional_backward():
    net = nn.Linear(4, 1)
    net.zero_grad()
    torch.autograd.backward(nn.functional.mse_loss(net(x), y))
    for p in net.parameters():
        print(p.grad.abs().max())


def make_closure(net, optimizer):
    def closure():
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        return loss

    return closure


def read_after_closure_step():
    net = nn.Linear(4, 1)
    optimizer = torch.optim.LBFGS(net.parameters(), max_iter=2)
    closure = make_closure(net, optimizer)
    optimizer.zero_grad()
    optimizer.step(closure)
    for p in net.parameters():
        print(p.grad.norm())


def guarded_read():
    net = nn.Linear(4, 1)
    optimizer = torch.optim.Adam(net.parameters())
    optimizer.zero_grad()
    for name, p in net.named_parameters():
        if p.grad is not None:
            print(name, p.grad.norm())


def optimizer_over_other_tensors():
    net = nn.Linear(4, 1)
    head = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    net(x).sum().backward()
    optimizer.zero_grad()
    for p in net.parameters():
        print(p.grad.norm())


class Weights(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(4, 1))

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is not None:
                p.grad.zero_()


def own_zero_grad():
    model = Weights()
    (x @ model.w).sum().backward()
    model.zero_grad()
    for p in model.parameters():
        print(p.grad.norm())


if __name__ == "__main__":
    reset_keeps_zeros()
    read_after_backward()
    read_after_functional_backward()
    read_after_closure_step()
    guarded_read()
    optimizer_over_other_tensors()
    own_zero_grad()
    print("ok")
