"""Category GG202 - second backward() through a graph the first backward() freed.

In the generator update the adversarial loss is backpropagated first, and then
an extra diversity (GDPP-style) term built from the *same* discriminator
features of the fake batch gets its own backward(). The first backward freed
the saved tensors of the shared D/G graph, so the second one raises
    RuntimeError: Trying to backward through the graph a second time ...
Modelled on: https://github.com/facebookresearch/pytorch_GAN_zoo/issues/83
(This file: fixed version - both generator terms are summed and backpropagated once.)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {"latent_dim": 8, "data_dim": 12, "feat_dim": 16, "batch": 6,
          "lr_g": 2e-4, "lr_d": 2e-4, "gdpp": True, "steps": 3}


class Generator(nn.Module):
    def __init__(self, latent_dim, data_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, 32), nn.LeakyReLU(0.2),
                                 nn.Linear(32, data_dim), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, data_dim, feat_dim):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(data_dim, feat_dim), nn.LeakyReLU(0.2))
        self.head = nn.Linear(feat_dim, 1)

    def forward(self, x, get_feature=False):
        f = self.features(x)
        out = self.head(f)
        return (out, f) if get_feature else out


def gdpp_loss(phi_fake, phi_real):
    """Match eigen-structure of the feature kernels of fake and real batches."""
    def kernel(phi):
        phi = F.normalize(phi, dim=1)
        return phi.t() @ phi
    ev_f, vec_f = torch.linalg.eigh(kernel(phi_fake))
    ev_r, vec_r = torch.linalg.eigh(kernel(phi_real))
    ev_r = ev_r / ev_r.abs().max()
    return F.mse_loss(ev_f / ev_f.abs().max(), ev_r) + (1 - (vec_f * vec_r).sum(0).abs()).mean()


class BaseGAN:
    def __init__(self, cfg):
        self.cfg = cfg
        self.netG = Generator(cfg["latent_dim"], cfg["data_dim"])
        self.netD = Discriminator(cfg["data_dim"], cfg["feat_dim"])
        self.optG = torch.optim.Adam(self.netG.parameters(), lr=cfg["lr_g"], betas=(0.0, 0.99))
        self.optD = torch.optim.Adam(self.netD.parameters(), lr=cfg["lr_d"], betas=(0.0, 0.99))
        self.loss_criterion = nn.BCEWithLogitsLoss()

    def build_noise(self, n):
        return torch.randn(n, self.cfg["latent_dim"])

    def optimize_parameters(self, real):
        n = real.size(0)
        all_losses = {}
        # discriminator step
        self.optD.zero_grad()
        pred_real = self.netD(real)
        fake = self.netG(self.build_noise(n)).detach()
        pred_fake = self.netD(fake)
        loss_d = self.loss_criterion(pred_real, torch.ones_like(pred_real)) + \
            self.loss_criterion(pred_fake, torch.zeros_like(pred_fake))
        loss_d.backward()
        self.optD.step()
        all_losses["lossD"] = loss_d.item()

        # generator step
        self.optG.zero_grad()
        self.optD.zero_grad()
        pred_fake, phi_fake = self.netD(self.netG(self.build_noise(n)), get_feature=True)
        loss_g_fake = self.loss_criterion(pred_fake, torch.ones_like(pred_fake))
        all_losses["lossG_fake"] = loss_g_fake.item()
        loss_g = loss_g_fake
        if self.cfg["gdpp"]:
            _, phi_real = self.netD(real, get_feature=True)
            loss_gdpp = gdpp_loss(phi_fake, phi_real.detach())
            loss_g = loss_g + loss_gdpp
            all_losses["lossG_GDPP"] = loss_gdpp.item()
        loss_g.backward()  # fixed: GG202
        self.optG.step()
        return all_losses


def main(argv=None):
    torch.manual_seed(0)
    gan = BaseGAN(CONFIG)
    data = torch.rand(CONFIG["batch"] * CONFIG["steps"], CONFIG["data_dim"]) * 2 - 1
    for step, real in enumerate(data.split(CONFIG["batch"])):
        losses = gan.optimize_parameters(real)
        print(f"step {step}: " + ", ".join(f"{k}={v:.3f}" for k, v in losses.items()))


if __name__ == "__main__":
    main([])
    print("FIXED: ok")
