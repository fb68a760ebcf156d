"""GG503 - autograd.grad results differentiated again without create_graph=True.

FIXED version. Original mistake: MAML on sine-wave regression, meant to be second-order.  The inner
loop computes ``grads = torch.autograd.grad(loss, params)`` with the default
``create_graph=False`` and builds the fast weights ``p - inner_lr * g``.  The
outer (meta) loss is back-propagated through the fast weights, but the inner
gradients are constants without history, so the Hessian term silently
disappears: the "MAML" actually trains as first-order MAML.

Silent effect (buggy version): no error; the meta-gradient w.r.t. the initial weights is exactly
the gradient w.r.t. the fast weights (first-order approximation).  The check in
``__main__`` asserts this on a real task.
Fix: ``create_graph=True`` in the inner ``autograd.grad`` call.

Modelled on: https://github.com/dragen1860/MAML-Pytorch/issues/63
"""
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F


@dataclass
class MetaConfig:
    meta_batch: int = 4
    k_shot: int = 5
    inner_lr: float = 0.01
    inner_steps: int = 1
    meta_lr: float = 1e-3
    meta_iters: int = 8
    hidden: int = 20


def init_params(hidden):
    torch.manual_seed(0)
    template = torch.nn.Sequential(torch.nn.Linear(1, hidden), torch.nn.Linear(hidden, hidden),
                                   torch.nn.Linear(hidden, 1))
    return [p.detach().clone().requires_grad_() for p in template.parameters()]


def functional_forward(x, params):
    w1, b1, w2, b2, w3, b3 = params
    h = F.relu(F.linear(x, w1, b1))
    h = F.relu(F.linear(h, w2, b2))
    return F.linear(h, w3, b3)


def sample_task(k):
    amp, phase = 0.1 + 4.9 * torch.rand(1), math.pi * torch.rand(1)
    def draw():
        x = 10 * torch.rand(k, 1) - 5
        return x, amp * torch.sin(x - phase)
    return draw(), draw()


class MAML:
    def __init__(self, cfg):
        self.cfg = cfg
        self.params = init_params(cfg.hidden)
        self.meta_opt = torch.optim.Adam(self.params, lr=cfg.meta_lr)

    def inner_adapt(self, x_spt, y_spt):
        fast = self.params
        for _ in range(self.cfg.inner_steps):
            loss = F.mse_loss(functional_forward(x_spt, fast), y_spt)
            grads = torch.autograd.grad(loss, fast, create_graph=True)  # fixed: GG503
            fast = [p - self.cfg.inner_lr * g for p, g in zip(fast, grads)]
        return fast

    def meta_step(self):
        meta_loss = 0.0
        for _ in range(self.cfg.meta_batch):
            (x_spt, y_spt), (x_qry, y_qry) = sample_task(self.cfg.k_shot)
            fast = self.inner_adapt(x_spt, y_spt)
            meta_loss = meta_loss + F.mse_loss(functional_forward(x_qry, fast), y_qry)
        meta_loss = meta_loss / self.cfg.meta_batch
        self.meta_opt.zero_grad()
        meta_loss.backward()
        self.meta_opt.step()
        return meta_loss.item()


def meta_grad_is_first_order(learner):
    """True if d(query loss)/d(init) == d(query loss)/d(fast weights)."""
    (x_spt, y_spt), (x_qry, y_qry) = sample_task(learner.cfg.k_shot)
    fast = learner.inner_adapt(x_spt, y_spt)
    q_loss = F.mse_loss(functional_forward(x_qry, fast), y_qry)
    g_init = torch.autograd.grad(q_loss, learner.params, retain_graph=True)
    g_fast = torch.autograd.grad(q_loss, fast)
    return all(torch.allclose(a, b, atol=1e-7) for a, b in zip(g_init, g_fast))


def main():
    learner = MAML(MetaConfig())
    for it in range(learner.cfg.meta_iters):
        print(f"meta-iter {it}: query mse {learner.meta_step():.4f}")
    return learner


if __name__ == "__main__":
    learner = main()
    assert not meta_grad_is_first_order(learner), "second-order term missing"
    print("FIXED: ok")
