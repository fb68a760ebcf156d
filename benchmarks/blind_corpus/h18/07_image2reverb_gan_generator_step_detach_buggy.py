"""GG103 - generator step feeds a detached fake spectrogram to the discriminator.

An Image2Reverb-style conditional GAN (image features -> reverb spectrogram) is
written as a Lightning-like module with training_step(batch, optimizer_idx).
In the generator step the discriminator is frozen (set_requires_grad(D, False))
and the fake spectrogram is passed as fake_spec.detach(), copied from the
discriminator step.  The generator loss then has no path to any tensor that
requires grad, and the manual backward fails:
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/nikhilsinghmus/image2reverb/issues/37
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = {"latent_dim": 32, "spec_bins": 16, "spec_frames": 16, "lr": 4e-4, "batch_size": 4, "max_steps": 4}


class Encoder(nn.Module):
    """Stand-in for the pretrained scene encoder (kept frozen)."""

    def __init__(self, latent_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, latent_dim))

    def forward(self, img):
        return self.net(img)


class Generator(nn.Module):
    def __init__(self, latent_dim, bins, frames):
        super().__init__()
        self.bins, self.frames = bins, frames
        self.fc = nn.Linear(latent_dim, 8 * (bins // 4) * (frames // 4))
        self.up = nn.Sequential(nn.ConvTranspose2d(8, 8, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(8, 1, 4, 2, 1), nn.Tanh())

    def forward(self, f):
        h = self.fc(f).view(-1, 8, self.bins // 4, self.frames // 4)
        return self.up(h)


class Discriminator(nn.Module):
    def __init__(self, latent_dim):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(8, 16, 4, 2, 1), nn.LeakyReLU(0.2),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.cond = nn.Linear(latent_dim, 16)
        self.out = nn.Linear(16, 1)

    def forward(self, spec, f):
        return self.out(self.conv(spec) * self.cond(f))


class Image2Reverb(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.hp = hp
        self.enc = Encoder(hp["latent_dim"])
        self.enc.requires_grad_(False)
        self.g = Generator(hp["latent_dim"], hp["spec_bins"], hp["spec_frames"])
        self.d = Discriminator(hp["latent_dim"])

    @staticmethod
    def set_requires_grad(net, flag):
        for p in net.parameters():
            p.requires_grad = flag

    def configure_optimizers(self):
        g_opt = torch.optim.Adam(self.g.parameters(), lr=self.hp["lr"], betas=(0.0, 0.99))
        d_opt = torch.optim.Adam(self.d.parameters(), lr=self.hp["lr"], betas=(0.0, 0.99))
        return [g_opt, d_opt]

    def training_step(self, batch, batch_idx, optimizer_idx):
        img, spec = batch
        f = self.enc(img)
        fake_spec = self.g(f)
        if optimizer_idx == 0:          # generator
            self.set_requires_grad(self.d, False)
            d_fake2 = self.d(fake_spec.detach(), f)
            G_loss = F.mse_loss(d_fake2, torch.ones_like(d_fake2))
            return {"loss": G_loss, "log": {"G_loss": G_loss.item()}}
        self.set_requires_grad(self.d, True)   # discriminator
        d_real = self.d(spec, f)
        d_fake = self.d(fake_spec.detach(), f)
        D_loss = 0.5 * (F.mse_loss(d_real, torch.ones_like(d_real)) + F.mse_loss(d_fake, torch.zeros_like(d_fake)))
        return {"loss": D_loss, "log": {"D_loss": D_loss.item()}}


def fit(module, loader, ckpt_dir):
    optimizers = module.configure_optimizers()
    step = 0
    for batch_idx, batch in enumerate(loader):
        for optimizer_idx, opt in enumerate(optimizers):
            opt.zero_grad()
            out = module.training_step(batch, batch_idx, optimizer_idx)
            out["loss"].backward()  # bug: GG103
            opt.step()
            print(f"step {step} opt {optimizer_idx}: {out['log']}")
        step += 1
        if step >= module.hp["max_steps"]:
            break
    torch.save(module.state_dict(), os.path.join(ckpt_dir, "last.ckpt"))


def main():
    torch.manual_seed(0)
    hp = HPARAMS
    imgs = torch.randn(16, 3, 32, 32)
    specs = torch.rand(16, 1, hp["spec_bins"], hp["spec_frames"]) * 2 - 1
    loader = DataLoader(TensorDataset(imgs, specs), batch_size=hp["batch_size"], shuffle=True)
    model = Image2Reverb(hp)
    g0 = model.g.fc.weight.detach().clone()
    fit(model, loader, tempfile.mkdtemp(prefix="i2r_"))
    assert not torch.equal(g0, model.g.fc.weight), "generator did not train"


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
