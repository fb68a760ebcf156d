"""GG401 - requires_grad set on interpolates computed from a non-detached fake.

Generative inpainting trainer (coarse/fine generator, local and global WGAN
critics). ``calc_gradient_penalty`` mixes real and inpainted images and then sets
``interpolates.requires_grad = True``. The inpainted image comes straight from the
generator and is not detached in the discriminator step, so ``interpolates`` is a
computed (non-leaf) tensor that already requires grad, and torch raises
  RuntimeError: you can only change requires_grad flags of leaf variables.

Modelled on: https://github.com/daa233/generative-inpainting-pytorch/issues/17
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd

config = {
    "image_shape": [3, 32, 32],
    "mask_shape": [16, 16],
    "batch_size": 2,
    "ngf": 8,
    "ndf": 8,
    "lr": 1e-4,
    "wgan_gp_lambda": 10,
    "n_critic": 2,
    "niter": 2,
}


class Generator(nn.Module):
    def __init__(self, ngf):
        super().__init__()
        self.coarse = nn.Sequential(nn.Conv2d(4, ngf, 3, 1, 1), nn.ELU(), nn.Conv2d(ngf, 3, 3, 1, 1))
        self.fine = nn.Sequential(nn.Conv2d(4, ngf, 3, 1, 1), nn.ELU(), nn.Conv2d(ngf, 3, 3, 1, 1))

    def forward(self, x, mask):
        x1 = torch.tanh(self.coarse(torch.cat([x, mask], dim=1)))
        x_stage1 = x1 * mask + x * (1 - mask)
        x2 = torch.tanh(self.fine(torch.cat([x_stage1, mask], dim=1)))
        return x1, x2


class Critic(nn.Module):
    def __init__(self, ndf, size):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, ndf, 4, 2, 1), nn.LeakyReLU(0.2),
                                 nn.Conv2d(ndf, ndf * 2, 4, 2, 1), nn.LeakyReLU(0.2), nn.Flatten())
        self.fc = nn.Linear(ndf * 2 * (size // 4) ** 2, 1)

    def forward(self, x):
        return self.fc(self.net(x))


def random_bbox(cfg):
    h, w = cfg["mask_shape"]
    top = torch.randint(0, cfg["image_shape"][1] - h, (1,)).item()
    left = torch.randint(0, cfg["image_shape"][2] - w, (1,)).item()
    return top, left, h, w


def bbox2mask(bbox, cfg):
    mask = torch.zeros(cfg["batch_size"], 1, *cfg["image_shape"][1:])
    t, l, h, w = bbox
    mask[:, :, t:t + h, l:l + w] = 1.0
    return mask


def local_patch(x, bbox):
    t, l, h, w = bbox
    return x[:, :, t:t + h, l:l + w]


class Trainer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.netG = Generator(cfg["ngf"])
        self.localD = Critic(cfg["ndf"], cfg["mask_shape"][0])
        self.globalD = Critic(cfg["ndf"], cfg["image_shape"][1])
        self.optimizer_g = torch.optim.Adam(self.netG.parameters(), lr=cfg["lr"], betas=(0.5, 0.9))
        d_params = list(self.localD.parameters()) + list(self.globalD.parameters())
        self.optimizer_d = torch.optim.Adam(d_params, lr=cfg["lr"], betas=(0.5, 0.9))

    def calc_gradient_penalty(self, netD, real_data, fake_data):
        batch_size = real_data.size(0)
        alpha = torch.rand(batch_size, 1, 1, 1).expand_as(real_data)
        interpolates = alpha * real_data + (1 - alpha) * fake_data
        interpolates.requires_grad = True  # bug: GG401
        disc_interpolates = netD(interpolates)
        gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                                  grad_outputs=torch.ones_like(disc_interpolates),
                                  create_graph=True, retain_graph=True, only_inputs=True)[0]
        gradients = gradients.view(batch_size, -1)
        return ((gradients.norm(2, dim=1) - 1) ** 2).mean()

    def forward(self, x, bboxes, masks, ground_truth):
        losses = {}
        x1, x2 = self.netG(x, masks)
        x2_inpaint = x2 * masks + x * (1 - masks)
        local_patch_gt = local_patch(ground_truth, bboxes)
        local_patch_x2 = local_patch(x2_inpaint, bboxes)
        losses["wgan_d"] = (self.localD(local_patch_x2.detach()).mean() - self.localD(local_patch_gt).mean()
                            + self.globalD(x2_inpaint.detach()).mean() - self.globalD(ground_truth).mean())
        losses["wgan_gp"] = (self.calc_gradient_penalty(self.localD, local_patch_gt, local_patch_x2)
                             + self.calc_gradient_penalty(self.globalD, ground_truth, x2_inpaint))
        losses["l1"] = F.l1_loss(x1, ground_truth) + F.l1_loss(x2, ground_truth)
        return losses, x2_inpaint

    def train_step(self, iteration, ground_truth):
        bbox = random_bbox(self.cfg)
        masks = bbox2mask(bbox, self.cfg)
        x = ground_truth * (1 - masks)
        losses, x2_inpaint = self.forward(x, bbox, masks, ground_truth)
        self.optimizer_d.zero_grad()
        d_loss = losses["wgan_d"] + losses["wgan_gp"] * self.cfg["wgan_gp_lambda"]
        d_loss.backward(retain_graph=True)
        self.optimizer_d.step()
        if iteration % self.cfg["n_critic"] == 0:
            self.optimizer_g.zero_grad()
            losses["wgan_g"] = (-self.localD(local_patch(x2_inpaint, bbox)).mean()
                                - self.globalD(x2_inpaint).mean())
            g_loss = losses["l1"] + 0.001 * losses["wgan_g"]
            g_loss.backward()
            self.optimizer_g.step()
        return {k: v.item() for k, v in losses.items()}


def main():
    torch.manual_seed(0)
    trainer = Trainer(config)
    for iteration in range(1, config["niter"] + 1):
        gt = torch.rand(config["batch_size"], *config["image_shape"]) * 2 - 1
        log = trainer.train_step(iteration, gt)
        print(f"Iter {iteration}: " + " ".join(f"{k} {v:.4f}" for k, v in log.items()))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
