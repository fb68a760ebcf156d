"""GG501 - backward() on a non-scalar loss (FIXED version).

Fix: the per-ray loss is averaged before backward().

The runner's loss helper builds a per-ray colour loss with reduction="none"
and a per-ray mask weighting, and then forgets to reduce it.  The train()
method calls loss.backward() on the resulting (batch,) tensor, so autograd
cannot create the implicit ones gradient and raises
RuntimeError: grad can be implicitly created only for scalar outputs

Modelled on: https://github.com/xxlong0/SparseNeuS/issues/42
"""
import argparse
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n_rays", type=int, default=64)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--iters", type=int, default=3)
    p.add_argument("--mask_weight", type=float, default=0.1)
    return p.parse_args(argv)


class RadianceField(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.pts = nn.Sequential(nn.Linear(3, hidden), nn.Softplus(), nn.Linear(hidden, hidden), nn.Softplus())
        self.sdf = nn.Linear(hidden, 1)
        self.rgb = nn.Sequential(nn.Linear(hidden + 3, hidden), nn.ReLU(), nn.Linear(hidden, 3))

    def forward(self, rays_o, rays_d):
        feat = self.pts(rays_o + 0.5 * rays_d)
        sdf = self.sdf(feat)
        color = torch.sigmoid(self.rgb(torch.cat([feat, rays_d], dim=-1)))
        alpha = torch.sigmoid(-10.0 * sdf)
        return {"color": color, "alpha": alpha.squeeze(-1)}


def render_loss(render_out, true_rgb, mask, mask_weight):
    color_err = F.l1_loss(render_out["color"], true_rgb, reduction="none").sum(dim=-1)
    mask_err = F.binary_cross_entropy(render_out["alpha"].clamp(1e-4, 1 - 1e-4), mask, reduction="none")
    loss = color_err * mask + mask_weight * mask_err
    return loss, {"color": color_err.mean().item(), "mask": mask_err.mean().item()}


class Runner:
    def __init__(self, args):
        self.args = args
        self.device = torch.device("cpu")
        self.model = RadianceField(args.hidden).to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr)
        self.iter_step = 0
        self.ckpt_dir = tempfile.mkdtemp()

    def sample_batch(self):
        n = self.args.n_rays
        rays_o = torch.randn(n, 3)
        rays_d = F.normalize(torch.randn(n, 3), dim=-1)
        rgb = torch.rand(n, 3)
        mask = (torch.rand(n) > 0.3).float()
        return rays_o.to(self.device), rays_d.to(self.device), rgb.to(self.device), mask.to(self.device)

    def train(self):
        self.model.train()
        for _ in range(self.args.iters):
            rays_o, rays_d, rgb, mask = self.sample_batch()
            out = self.model(rays_o, rays_d)
            loss, logs = render_loss(out, rgb, mask, self.args.mask_weight)
            self.optimizer.zero_grad()
            loss.mean().backward()  # fixed: GG501
            self.optimizer.step()
            self.iter_step += 1
            if self.iter_step % 2 == 0:
                print(f"iter {self.iter_step}: color={logs['color']:.4f} mask={logs['mask']:.4f}")
        self.save_checkpoint()

    def save_checkpoint(self):
        path = os.path.join(self.ckpt_dir, f"ckpt_{self.iter_step:06d}.pth")
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}, path)


def main():
    torch.manual_seed(0)
    runner = Runner(get_args([]))
    runner.train()


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        raise SystemExit(f"unexpected error: {e}")
    print("FIXED: ok")
