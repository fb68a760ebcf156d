"""GG405 look-alike - scaled tensors handed to the optimizer, all of them leaves.

Learning the parameters of a mass-spring-damper from data. The trainable tensors
are created from scaled expressions - ``(torch.randn(2) * 0.1).requires_grad_()``
and ``nn.Parameter(init * scale)`` - and a ``.to(device)`` is done *before*
``requires_grad_`` is set. Each result is a leaf, so the optimizer accepts it.
Looks like "scaled after requires_grad"; runs cleanly.

Modelled on: https://github.com/locuslab/differentiable-mpc/issues/5
"""
import torch
import torch.nn as nn

DEVICE = torch.device("cpu")
SETUP = {"dt": 0.05, "T": 20, "n_traj": 6, "iters": 30, "lr": 5e-2}


def simulate(k, c, x0, v0, force, dt):
    xs, x, v = [], x0, v0
    for t in range(force.size(1)):
        a = force[:, t] - k * x - c * v
        v = v + dt * a
        x = x + dt * v
        xs.append(x)
    return torch.stack(xs, dim=1)


class SpringModel(nn.Module):
    def __init__(self, init_k):
        super().__init__()
        self.log_k = nn.Parameter(torch.log(torch.tensor(init_k)) * 1.0)
        self.bias = (torch.randn(2) * 0.1).requires_grad_()

    def params(self):
        return self.log_k.exp(), torch.nn.functional.softplus(self.bias[0]) + 0.01


def main():
    torch.manual_seed(0)
    s = SETUP
    x0 = torch.randn(s["n_traj"]).to(DEVICE)
    v0 = torch.zeros(s["n_traj"]).to(DEVICE)
    force = torch.randn(s["n_traj"], s["T"]).to(DEVICE)
    with torch.no_grad():
        target = simulate(torch.tensor(4.0), torch.tensor(0.5), x0, v0, force, s["dt"])

    model = SpringModel(init_k=2.0)
    extra_gain = torch.ones(1).to(DEVICE).requires_grad_(True)
    assert model.bias.is_leaf and extra_gain.is_leaf
    opt = torch.optim.Adam([{"params": model.parameters()},
                            {"params": [model.bias, extra_gain], "lr": s["lr"] / 2}], lr=s["lr"])
    first = None
    for it in range(s["iters"]):
        k, c = model.params()
        pred = simulate(k, c, x0, v0, force * extra_gain, s["dt"])
        loss = (pred - target).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    print(f"loss {first:.5f} -> {loss.item():.5f}, k={k.item():.3f}, c={c.item():.3f}")
    assert loss.item() < first


if __name__ == "__main__":
    main()
    print("OK")
