"""Two-layer network with manual updates that clears gradients before backward.

Modelled on: https://github.com/jcjohnson/pytorch-examples/issues/14 (counterpart)

Looks like zeroing .grad at the top of the loop before any backward() ran.
The reset goes through a helper that sets .grad to None (what
optimizer.zero_grad() does by default) or zeroes it only when it exists, and
the first real read of .grad happens after loss.backward().
"""
import torch

torch.set_num_threads(1)


def reset_grads(params, set_to_none=True):
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            p.grad.zero_()


def grad_norm(params):
    return torch.sqrt(sum((p.grad ** 2).sum() for p in params)).item()


def train(steps=20, lr=1e-4, N=16, D_in=20, H=12, D_out=4):
    x, y = torch.randn(N, D_in), torch.randn(N, D_out)
    w1 = torch.randn(D_in, H, requires_grad=True)
    w2 = torch.randn(H, D_out, requires_grad=True)
    params = [w1, w2]
    norms = []
    for t in range(steps):
        reset_grads(params, set_to_none=(t % 2 == 0))
        loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
        loss.backward()
        norms.append(grad_norm(params))
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
    return norms


if __name__ == "__main__":
    torch.manual_seed(0)
    norms = train()
    assert len(norms) == 20
    print("OK")
