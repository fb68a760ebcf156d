"""GG202 - second backward() through a generator graph that the first backward() freed. (fixed version)

A pix2pix-style model class (forward / backward_D / backward_G /
optimize_parameters) is switched to a WGAN-GP critic that is updated
`n_critic` times per generator step.  The fake image is produced once in
forward(); the adversarial term uses `fake_AB.detach()`, but the gradient
penalty is given the *non-detached* `fake_AB`.  The first critic backward
therefore runs through the generator's graph and frees it; the second critic
iteration reuses the same self.fake_B and backward() fails with:
  RuntimeError: Trying to backward through the graph a second time (or directly
  access saved tensors after they have already been freed). ...

Fix: hand the gradient penalty a detached fake_AB, so the critic loss never
reaches the generator graph; the generator step then back-propagates it once.

Modelled on: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/439
"""
import torch
import torch.nn as nn

OPT = {"in_ch": 1, "out_ch": 1, "ngf": 8, "ndf": 8, "lr": 2e-4, "lambda_L1": 10.0,
       "lambda_gp": 10.0, "n_critic": 3, "batch_size": 4, "size": 8, "iters": 2}


def make_generator(in_ch, out_ch, ngf):
    return nn.Sequential(
        nn.Conv2d(in_ch, ngf, 3, padding=1), nn.ReLU(True),
        nn.Conv2d(ngf, ngf, 3, padding=1), nn.ReLU(True),
        nn.Conv2d(ngf, out_ch, 3, padding=1), nn.Tanh())


def make_critic(in_ch, ndf):
    return nn.Sequential(
        nn.Conv2d(in_ch, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True),
        nn.Conv2d(ndf, ndf * 2, 4, 2, 1), nn.LeakyReLU(0.2, True),
        nn.Conv2d(ndf * 2, 1, 3, 1, 1))


def cal_gradient_penalty(netD, real_data, fake_data, lambda_gp):
    alpha = torch.rand(real_data.size(0), 1, 1, 1, device=real_data.device)
    interpolates = alpha * real_data + (1 - alpha) * fake_data
    interpolates.requires_grad_(True)
    disc = netD(interpolates)
    grads = torch.autograd.grad(outputs=disc, inputs=interpolates,
                                grad_outputs=torch.ones_like(disc),
                                create_graph=True, retain_graph=True)[0]
    grads = grads.view(grads.size(0), -1)
    return ((grads.norm(2, dim=1) - 1) ** 2).mean() * lambda_gp


class Pix2PixWGANModel:
    def __init__(self, opt):
        self.opt = opt
        self.netG = make_generator(opt["in_ch"], opt["out_ch"], opt["ngf"])
        self.netD = make_critic(opt["in_ch"] + opt["out_ch"], opt["ndf"])
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt["lr"], betas=(0.5, 0.9))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt["lr"], betas=(0.5, 0.9))
        self.criterionL1 = nn.L1Loss()

    def set_input(self, batch):
        self.real_A, self.real_B = batch

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def set_requires_grad(self, net, flag):
        for p in net.parameters():
            p.requires_grad = flag

    def backward_D(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        self.loss_D_fake = self.netD(fake_AB.detach()).mean()
        self.loss_D_real = -self.netD(real_AB).mean()
        self.loss_gp = cal_gradient_penalty(self.netD, real_AB, fake_AB.detach(), self.opt["lambda_gp"])
        self.loss_D = self.loss_D_fake + self.loss_D_real + self.loss_gp
        self.loss_D.backward()  # fixed: GG202

    def backward_G(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        self.loss_G_GAN = -self.netD(fake_AB).mean()
        self.loss_G_L1 = self.criterionL1(self.fake_B, self.real_B) * self.opt["lambda_L1"]
        self.loss_G = self.loss_G_GAN + self.loss_G_L1
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.set_requires_grad(self.netD, True)
        for _ in range(self.opt["n_critic"]):
            self.optimizer_D.zero_grad()
            self.backward_D()
            self.optimizer_D.step()
        self.set_requires_grad(self.netD, False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

    def get_current_losses(self):
        return {k: getattr(self, "loss_" + k).item() for k in ("D", "gp", "G_GAN", "G_L1")}


def fake_dataset(opt, n_batches):
    for _ in range(n_batches):
        a = torch.rand(opt["batch_size"], opt["in_ch"], opt["size"], opt["size"]) * 2 - 1
        b = torch.flip(a, dims=[3])
        yield a, b


def main():
    torch.manual_seed(0)
    model = Pix2PixWGANModel(OPT)
    for i, batch in enumerate(fake_dataset(OPT, OPT["iters"])):
        model.set_input(batch)
        model.optimize_parameters()
        losses = model.get_current_losses()
        print(f"iter {i}: " + ", ".join(f"{k}={v:.3f}" for k, v in losses.items()))


if __name__ == "__main__":
    main()
    print("FIXED: ok")
