"""GG407 look-alike (correct code).

A training loop with an early-stopping helper logs per-layer gradient
norms and zeroes gradients manually.  Every .grad access either happens
after loss.backward() in the same step, or is guarded with
`if p.grad is not None` (the manual reset at the top of the loop and a
pre-backward "stale gradient" check), so no None is ever dereferenced.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def grad_norms(model):
    return {name: p.grad.norm().item() for name, p in model.named_parameters() if p.grad is not None}


def zero_grads(model):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.detach_()
            p.grad.zero_()


class EarlyStopping:
    def __init__(self, patience=2):
        self.best, self.bad, self.patience = float("inf"), 0, patience

    def __call__(self, val):
        if val < self.best - 1e-4:
            self.best, self.bad = val, 0
        else:
            self.bad += 1
        return self.bad >= self.patience


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
    x, y = torch.randn(64, 5), torch.randn(64, 1)
    xv, yv = torch.randn(16, 5), torch.randn(16, 1)
    stopper = EarlyStopping()
    lr = 0.05
    for epoch in range(5):
        for i in range(0, 64, 16):
            zero_grads(model)
            stale = sum(p.grad.abs().sum().item() for p in model.parameters() if p.grad is not None)
            assert stale == 0.0
            loss = F.mse_loss(model(x[i:i + 16]), y[i:i + 16])
            loss.backward()
            norms = grad_norms(model)
            with torch.no_grad():
                for p in model.parameters():
                    p -= lr * p.grad
        with torch.no_grad():
            val = F.mse_loss(model(xv), yv).item()
        print(f"epoch {epoch}: val={val:.4f} |g0|={norms['0.weight']:.4f}")
        if stopper(val):
            print("early stop")
            break


if __name__ == "__main__":
    main()
    print("OK")
