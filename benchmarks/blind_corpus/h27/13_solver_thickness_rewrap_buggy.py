"""RCWA-style solver whose thickness setter re-wraps values with torch.tensor().

Modelled on: https://github.com/kc-ml2/meent/pull/107

The solver's property setters store their argument through
`torch.tensor(value, ...)`.  When the caller optimises a layer thickness and
passes it as a list that mixes a learnable tensor with a fixed float
(`[t, 200e-9]`), `torch.tensor()` copies the values out and builds a new
leaf, silently detaching `t`.  The reflectance the optimiser backpropagates
has no graph back to `t`, and `loss.backward()` fails with "element 0 of
tensors does not require grad".
"""
import argparse
import math

import torch


class EMSolverBase:
    def __init__(self, wavelength=900e-9, period=(1000e-9,), thickness=(300e-9,),
                 n_layers=(2.0, 3.5), type_float=torch.float64):
        self.type_float = type_float
        self.wavelength = wavelength
        self.period = period
        self.n_layers = n_layers
        self.thickness = thickness

    @property
    def period(self):
        return self._period

    @period.setter
    def period(self, period):
        self._period = torch.tensor(period, dtype=self.type_float)

    @property
    def thickness(self):
        return self._thickness

    @thickness.setter
    def thickness(self, thickness):
        if isinstance(thickness, torch.Tensor):
            self._thickness = thickness.to(self.type_float)
        else:
            self._thickness = torch.tensor(thickness, dtype=self.type_float)  # bug: GG105

    @property
    def n_layers(self):
        return self._n_layers

    @n_layers.setter
    def n_layers(self, n_layers):
        self._n_layers = torch.tensor(n_layers, dtype=self.type_float)


class ThinFilmSolver(EMSolverBase):
    """Incoherent toy thin-film stack: phase accumulates with thickness."""

    def conv_solve(self):
        k0 = 2 * math.pi / self.wavelength
        phase = k0 * self.n_layers * self.thickness
        r_interfaces = (self.n_layers - 1.0) / (self.n_layers + 1.0)
        return (r_interfaces ** 2 * torch.cos(phase) ** 2).sum()


def target_loss(reflectance, target=0.05):
    return (reflectance - target) ** 2


def optimise(solver, t, steps, lr):
    opt = torch.optim.Adam([t], lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        solver.thickness = [t, 200e-9]  # layer 1 optimised, layer 2 fixed
        loss = target_loss(solver.conv_solve())
        loss.backward()
        opt.step()
    return t


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-9)
    args = p.parse_args(argv)
    solver = ThinFilmSolver()
    t = torch.tensor(300e-9, dtype=torch.float64, requires_grad=True)
    try:
        optimise(solver, t, args.steps, args.lr)
        assert t.grad is not None
        print("FIXED: ok")
    except RuntimeError as e:
        print(f"BUGGY: {e}")


if __name__ == "__main__":
    main([])
