"""GG605 - optimizer.zero_grad() between loss.backward() and optimizer.step().

Mistake: the Trainer's optimizer_step() helper backpropagates, then "cleans up"
the gradients with zero_grad() and only afterwards calls step(). The step
therefore sees no gradients (None with the default set_to_none=True) and skips
every parameter.
Silent effect: the denoiser's weights are exactly the same after training.

Modelled on: https://github.com/LeiaLi/SRDiff/issues/15
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

hparams = {
    "lr": 2e-4,
    "timesteps": 20,
    "hidden": 16,
    "batch_size": 4,
    "max_updates": 5,
    "clip_grad_norm": 1.0,
}


class DenoiseNet(nn.Module):
    def __init__(self, hidden, timesteps):
        super().__init__()
        self.t_emb = nn.Embedding(timesteps, hidden)
        self.inp = nn.Conv2d(6, hidden, 3, padding=1)
        self.mid = nn.Conv2d(hidden, hidden, 3, padding=1)
        self.out = nn.Conv2d(hidden, 3, 3, padding=1)

    def forward(self, x_t, t, cond):
        h = F.silu(self.inp(torch.cat([x_t, cond], 1)))
        h = h + self.t_emb(t)[:, :, None, None]
        return self.out(F.silu(self.mid(h)))


class GaussianDiffusion(nn.Module):
    def __init__(self, denoise_fn, timesteps):
        super().__init__()
        self.denoise_fn = denoise_fn
        betas = torch.linspace(1e-4, 0.02, timesteps)
        self.register_buffer("alphas_cumprod", torch.cumprod(1 - betas, 0))
        self.timesteps = timesteps

    def forward(self, img_hr, img_lr_up):
        t = torch.randint(0, self.timesteps, (img_hr.shape[0],))
        noise = torch.randn_like(img_hr)
        a = self.alphas_cumprod[t][:, None, None, None]
        x_t = a.sqrt() * img_hr + (1 - a).sqrt() * noise
        return {"q": F.l1_loss(self.denoise_fn(x_t, t, img_lr_up), noise)}


class Trainer:
    def __init__(self, hp):
        self.hp = hp
        self.model = GaussianDiffusion(DenoiseNet(hp["hidden"], hp["timesteps"]), hp["timesteps"])
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=hp["lr"])
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=100, gamma=0.5)
        self.global_step = 0

    def training_step(self, batch):
        img_hr, img_lr = batch
        img_lr_up = F.interpolate(img_lr, scale_factor=2, mode="bilinear", align_corners=False)
        losses = self.model(img_hr, img_lr_up)
        return sum(losses.values()), losses

    def optimizer_step(self, total_loss):
        total_loss.backward()
        if self.hp["clip_grad_norm"] > 0:
            nn.utils.clip_grad_norm_(self.model.parameters(), self.hp["clip_grad_norm"])
        self.optimizer.zero_grad()  # bug: GG605
        self.optimizer.step()
        self.scheduler.step()

    def train(self, loader):
        self.model.train()
        while self.global_step < self.hp["max_updates"]:
            for batch in loader:
                total_loss, log = self.training_step(batch)
                self.optimizer_step(total_loss)
                self.global_step += 1
                print(f"step {self.global_step}: " + ", ".join(f"{k}={v.item():.4f}" for k, v in log.items()))
                if self.global_step >= self.hp["max_updates"]:
                    break


def main():
    torch.manual_seed(0)
    hr = torch.rand(8, 3, 16, 16) * 2 - 1
    lr = F.avg_pool2d(hr, 2)
    loader = DataLoader(TensorDataset(hr, lr), batch_size=hparams["batch_size"], shuffle=True)
    trainer = Trainer(hparams)
    before = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
    trainer.train(loader)
    after = trainer.model.state_dict()
    return all(torch.equal(before[k], after[k]) for k in before)


if __name__ == "__main__":
    unchanged = main()
    try:
        assert not unchanged, "no parameter changed: gradients were cleared before optimizer.step()"
    except AssertionError as e:
        print(f"BUGGY: {e}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
