"""Category GG407 - .grad used before any backward ran (it is None).

A hand-written two-layer network keeps its weights as raw tensors and clears
their gradients with a helper at the *start* of every iteration. On the very
first iteration no backward() has run yet, so every ``.grad`` is still None:
    AttributeError: 'NoneType' object has no attribute 'zero_'
Modelled on: https://github.com/jcjohnson/pytorch-examples/issues/7
(This file: buggy version.)
"""
import torch

dtype = torch.float
device = torch.device("cpu")

N, D_in, H, D_out = 16, 20, 32, 4
LEARNING_RATE = 1e-4
N_ITERS = 20
LOG_EVERY = 5


def init_params(seed=0):
    g = torch.Generator().manual_seed(seed)
    w1 = torch.randn(D_in, H, generator=g, device=device, dtype=dtype, requires_grad=True)
    w2 = torch.randn(H, D_out, generator=g, device=device, dtype=dtype, requires_grad=True)
    return {"w1": w1, "w2": w2}


def forward(x, params):
    return x.mm(params["w1"]).clamp(min=0).mm(params["w2"])


def zero_grads(params):
    for p in params.values():
        p.grad.zero_()  # bug: GG407


def sgd_update(params, lr):
    with torch.no_grad():
        for p in params.values():
            p -= lr * p.grad


def grad_norms(params):
    return {k: p.grad.norm().item() for k, p in params.items()}


def train(x, y, params, n_iters, lr):
    history = []
    for t in range(n_iters):
        zero_grads(params)
        y_pred = forward(x, params)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        sgd_update(params, lr)
        history.append(loss.item())
        if t % LOG_EVERY == 0:
            norms = grad_norms(params)
            print(f"iter {t:3d} loss {loss.item():10.2f} |g1| {norms['w1']:.1f} |g2| {norms['w2']:.1f}")
    return history


def main(argv=None):
    torch.manual_seed(0)
    x = torch.randn(N, D_in, device=device, dtype=dtype)
    y = torch.randn(N, D_out, device=device, dtype=dtype)
    params = init_params()
    history = train(x, y, params, N_ITERS, LEARNING_RATE)
    assert history[-1] < history[0]
    return history


if __name__ == "__main__":
    try:
        main([])
    except AttributeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        raise SystemExit(0)
    raise SystemExit("NO BUG")
