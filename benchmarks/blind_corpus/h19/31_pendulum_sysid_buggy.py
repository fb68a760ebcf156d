"""GG405 - optimizer given a tensor that is no longer a leaf.

System identification for a pendulum model: the experiment learns the physical
parameters (gravity, mass, length) from trajectories. ``IL_Exp.__init__`` creates
the parameters with ``requires_grad=True`` and then perturbs them away from the
true values by multiplying with noise. The product is a computed tensor, not a
leaf, and building the RMSprop optimizer over it raises
  ValueError: can't optimize a non-leaf Tensor

Modelled on: https://github.com/locuslab/differentiable-mpc/issues/5
"""
import argparse
import os
import tempfile

import torch


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", type=str, default="sysid")
    parser.add_argument("--n_train", type=int, default=8)
    parser.add_argument("--T", type=int, default=10)
    parser.add_argument("--n_epoch", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=str, default=tempfile.mkdtemp(prefix="sysid_"))
    return parser.parse_args([])


class PendulumDx:
    """Differentiable pendulum dynamics, params = (gravity, mass, length)."""

    def __init__(self, params, dt=0.05):
        self.params = params
        self.dt = dt

    def __call__(self, x, u):
        g, m, l = torch.unbind(self.params)
        cos_th, sin_th, dth = torch.unbind(x, dim=1)
        th = torch.atan2(sin_th, cos_th)
        ddth = -3.0 * g / (2.0 * l) * torch.sin(th + torch.pi) + 3.0 * u.squeeze(1) / (m * l ** 2)
        new_dth = dth + self.dt * ddth
        new_th = th + self.dt * new_dth
        return torch.stack([torch.cos(new_th), torch.sin(new_th), new_dth], dim=1)


def rollout(dx, x0, u):
    xs = [x0]
    for t in range(u.size(1)):
        xs.append(dx(xs[-1], u[:, t]))
    return torch.stack(xs[1:], dim=1)


class IL_Exp:
    def __init__(self, n_train, T, n_epoch, seed, save, mode):
        torch.manual_seed(seed)
        self.mode, self.n_epoch, self.save = mode, n_epoch, save
        self.true_params = torch.tensor([10.0, 1.0, 1.0])
        self.true_dx = PendulumDx(self.true_params)
        th = torch.rand(n_train) * 2 * torch.pi
        self.x0 = torch.stack([torch.cos(th), torch.sin(th), torch.zeros(n_train)], dim=1)
        self.u = torch.randn(n_train, T, 1)
        with torch.no_grad():
            self.x_true = rollout(self.true_dx, self.x0, self.u)
        if mode == "sysid":
            self.env_params = torch.tensor([10.0, 1.0, 1.0], requires_grad=True)
            self.env_params = self.env_params * (1.0 + 0.2 * torch.randn(3))

    def run(self):
        params = [{"params": self.env_params, "lr": 1e-2, "alpha": 0.5}]
        opt = torch.optim.RMSprop(params)  # bug: GG405
        losses = []
        for epoch in range(self.n_epoch):
            dx = PendulumDx(self.env_params)
            x_pred = rollout(dx, self.x0, self.u)
            loss = (x_pred - self.x_true).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            print(f"epoch {epoch}: imitation loss {loss.item():.5f} params {self.env_params.tolist()}")
        torch.save({"env_params": self.env_params.detach()}, os.path.join(self.save, "params.pt"))
        return losses


def main():
    args = parse_args()
    exp = IL_Exp(**vars(args))
    losses = exp.run()
    assert losses[-1] <= losses[0] * 1.5
    return losses


if __name__ == "__main__":
    try:
        main()
    except ValueError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
