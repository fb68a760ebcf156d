"""GG407: gradients read by a line-search optimizer before any backward() ran (.grad is None).

A training script uses an Armijo line-search optimizer whose step(closure) evaluates the
closure once and then reads `p.grad` of every parameter to build the search direction. The
user's closure only calls loss.backward() when asked with `backwards=True`, and its default
is False, so on the first step no backward has ever run and every `p.grad` is None.
Python raises: TypeError: unsupported operand type(s) for ** or pow(): 'NoneType' and 'int'

Modelled on: https://github.com/TheMody/No-learning-rates-needed-Introducing-SALSA-Stable-Armijo-Line-Search-Adaptation/issues/1
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ArmijoSGD(torch.optim.Optimizer):
    """Backtracking (Armijo) line search along the negative gradient."""

    def __init__(self, params, init_lr=1.0, c=0.1, beta=0.5, max_backtracks=10):
        super().__init__(params, dict(init_lr=init_lr, c=c, beta=beta, max_backtracks=max_backtracks))
        self.state["step_size"] = init_lr

    @staticmethod
    def get_pp_norm(grads):
        return sum(((g ** 2).sum() for g in grads), torch.zeros(()))

    @torch.no_grad()
    def step(self, closure):
        with torch.enable_grad():
            loss = closure()
        group = self.param_groups[0]
        params = group["params"]
        grad_current = [p.grad for p in params]  # bug: GG407
        grad_norm_sq = self.get_pp_norm(grad_current)
        start = [p.detach().clone() for p in params]
        lr = self.state["step_size"] / group["beta"]
        for _ in range(group["max_backtracks"]):
            for p, p0, g in zip(params, start, grad_current):
                p.copy_(p0 - lr * g)
            new_loss = closure(backwards=False)
            if new_loss <= loss - group["c"] * lr * grad_norm_sq:
                break
            lr *= group["beta"]
        self.state["step_size"] = lr
        return loss


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))

    def forward(self, x):
        return self.net(x)


def train_epoch(model, loader, criterion, optimizer, epoch):
    model.train()
    losses = []
    for inputs, target in loader:
        def closure(backwards=False):
            y_pred = model(inputs)
            loss = criterion(y_pred, target)
            if backwards:
                loss.backward()
            return loss
        optimizer.zero_grad()
        loss = optimizer.step(closure=closure)
        losses.append(loss.item())
    print(f"epoch {epoch}: loss {sum(losses) / len(losses):.4f}")


def main():
    torch.manual_seed(0)
    x = torch.randn(48, 10)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 1).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    model = MLP()
    optimizer = ArmijoSGD(model.parameters())
    for epoch in range(2):
        train_epoch(model, loader, nn.CrossEntropyLoss(), optimizer, epoch)


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, AttributeError, TypeError) as err:
        print(f"BUGGY: {type(err).__name__}: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
