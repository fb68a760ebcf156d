"""GG503 look-alike - autograd.grad results reused in a loss, correctly, without create_graph.

First-order MAML on toy sine-regression tasks: the inner loop takes
torch.autograd.grad(support_loss, weights) WITHOUT create_graph=True (on purpose:
first-order approximation) and builds fast weights w - lr * g.  The query loss
is then back-propagated to the meta-parameters through w; the inner gradients
enter only as constants and are never differentiated again.  No error, and the
meta-parameters change.  A checker that flags every autograd.grad result used in a
later loss without create_graph would be wrong here.

Modelled on: https://github.com/amirgholami/PyHessian/issues/12 (correct counterpart)
"""
import math
import random

import torch
import torch.nn.functional as F

META = {"hidden": 40, "inner_lr": 0.01, "outer_lr": 1e-3, "inner_steps": 2,
        "tasks_per_batch": 4, "k_shot": 10, "iterations": 6, "first_order": True}


def init_weights(hidden):
    def layer(i, o):
        w = torch.randn(o, i) * math.sqrt(2.0 / i)
        return [w.requires_grad_(), torch.zeros(o, requires_grad=True)]
    return layer(1, hidden) + layer(hidden, hidden) + layer(hidden, 1)


def functional_forward(x, weights):
    h = F.relu(F.linear(x, weights[0], weights[1]))
    h = F.relu(F.linear(h, weights[2], weights[3]))
    return F.linear(h, weights[4], weights[5])


def sample_task(k):
    amp, phase = random.uniform(0.1, 5.0), random.uniform(0, math.pi)
    def draw():
        x = torch.empty(k, 1).uniform_(-5, 5)
        return x, amp * torch.sin(x + phase)
    return draw(), draw()


def adapt(weights, support, cfg):
    fast = list(weights)
    xs, ys = support
    for _ in range(cfg["inner_steps"]):
        loss = F.mse_loss(functional_forward(xs, fast), ys)
        grads = torch.autograd.grad(loss, fast, create_graph=not cfg["first_order"])
        fast = [w - cfg["inner_lr"] * g for w, g in zip(fast, grads)]
    return fast


def meta_train(weights, cfg):
    opt = torch.optim.Adam(weights, lr=cfg["outer_lr"])
    history = []
    for it in range(cfg["iterations"]):
        opt.zero_grad()
        meta_loss = 0.0
        for _ in range(cfg["tasks_per_batch"]):
            support, query = sample_task(cfg["k_shot"])
            fast = adapt(weights, support, cfg)
            meta_loss = meta_loss + F.mse_loss(functional_forward(query[0], fast), query[1])
        meta_loss = meta_loss / cfg["tasks_per_batch"]
        meta_loss.backward()
        opt.step()
        history.append(meta_loss.item())
        print(f"iter {it}: meta-loss {history[-1]:.3f}")
    return history


def main():
    random.seed(0)
    torch.manual_seed(0)
    weights = init_weights(META["hidden"])
    snapshot = [w.detach().clone() for w in weights]
    meta_train(weights, META)
    return snapshot, weights


if __name__ == "__main__":
    before, after = main()
    assert any(not torch.equal(b, a.detach()) for b, a in zip(before, after))
    print("OK")
