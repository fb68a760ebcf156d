"""Category GG203 - loss tensors accumulated across iterations keep every graph alive.

A point-cloud completion runner (coarse + refined output, Chamfer losses) logs its
losses through an AverageMeter. The runner hands the meter the loss *tensors*, so
the meter's running sums become tensors with a grad_fn that chain every
iteration's graph together: nothing from past steps can be freed and memory grows
for the whole epoch (CUDA OOM after an epoch or two on a real GPU). No exception
is raised; the script proves the leak by checking that the meter's sum still has
a grad_fn reaching back into the graph after the epoch.

Modelled on: https://github.com/microsoft/SpareNet/issues/12
"""
import torch
import torch.nn as nn

CFG = {"n_in": 64, "n_coarse": 32, "n_fine": 64, "latent": 64, "batch": 4,
       "iters": 5, "lr": 1e-3}


class AverageMeter:
    def __init__(self, items):
        self.items = items
        self.reset()

    def reset(self):
        self._val = [0] * len(self.items)
        self._sum = [0] * len(self.items)
        self._count = [0] * len(self.items)

    def update(self, values):
        for i, v in enumerate(values):
            self._val[i] = v
            self._sum[i] += v
            self._count[i] += 1

    def avg(self, idx):
        return self._sum[idx] / max(self._count[idx], 1)


def chamfer(a, b):
    d = torch.cdist(a, b)
    return d.min(dim=2).values.mean() + d.min(dim=1).values.mean()


class CompletionNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_coarse, self.n_fine = cfg["n_coarse"], cfg["n_fine"]
        self.encoder = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, cfg["latent"]))
        self.coarse = nn.Linear(cfg["latent"], cfg["n_coarse"] * 3)
        self.refine = nn.Sequential(nn.Linear(cfg["latent"] + 3, 32), nn.ReLU(), nn.Linear(32, 3))

    def forward(self, partial):
        feat = self.encoder(partial).max(dim=1).values
        coarse = self.coarse(feat).view(-1, self.n_coarse, 3)
        seeds = coarse.repeat_interleave(self.n_fine // self.n_coarse, dim=1)
        ctx = feat.unsqueeze(1).expand(-1, seeds.size(1), -1)
        fine = seeds + self.refine(torch.cat([ctx, seeds], dim=-1))
        return coarse, fine


class SpareRunner:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = CompletionNet(cfg)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg["lr"])
        self.losses = AverageMeter(["CoarseLoss", "RefineLoss"])

    def train_step(self, partial, gt):
        coarse, fine = self.model(partial)
        coarse_loss = chamfer(coarse, gt)
        refine_loss = chamfer(fine, gt)
        total = coarse_loss + refine_loss
        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        return coarse_loss, refine_loss

    def train_epoch(self, loader):
        self.model.train()
        self.losses.reset()
        for partial, gt in loader:
            coarse_loss, refine_loss = self.train_step(partial, gt)
            self.losses.update([coarse_loss, refine_loss])  # bug: GG203
        return self.losses


def make_loader(cfg):
    for _ in range(cfg["iters"]):
        gt = torch.randn(cfg["batch"], cfg["n_fine"], 3)
        yield gt[:, : cfg["n_in"] // 2] + 0.01 * torch.randn(cfg["batch"], cfg["n_in"] // 2, 3), gt


if __name__ == "__main__":
    torch.manual_seed(0)
    runner = SpareRunner(CFG)
    meter = runner.train_epoch(make_loader(CFG))
    summed = meter._sum[0]
    print(f"epoch avg coarse={meter.avg(0):.4f} refine={meter.avg(1):.4f}")
    if isinstance(summed, torch.Tensor) and summed.grad_fn is not None:
        print("BUGGY: meter sum still holds an autograd graph:", type(summed.grad_fn).__name__)
    else:
        raise SystemExit("NO BUG")
