"""GG605 look-alike - zero_grad() between backward() and step(), but of the *other* optimizer.

Correct code: in the GAN generator update, loss_g.backward() also deposits gradients
in the discriminator's parameters. The code clears them with d_optimizer.zero_grad()
right after the backward and before g_optimizer.step(); the generator's gradients are
untouched, so the generator trains (checked) and the discriminator starts its next
update from clean gradients. Runs cleanly.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HP = {"z_dim": 8, "x_dim": 12, "lr_g": 2e-4, "lr_d": 2e-4, "epochs": 2, "batch": 16}


def build_generator(z_dim, x_dim):
    return nn.Sequential(nn.Linear(z_dim, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, x_dim), nn.Tanh())


def build_discriminator(x_dim):
    return nn.Sequential(nn.Linear(x_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))


class GANTrainer:
    def __init__(self, gen, disc, hp):
        self.gen, self.disc, self.hp = gen, disc, hp
        self.g_optimizer = torch.optim.Adam(gen.parameters(), lr=hp["lr_g"], betas=(0.5, 0.999))
        self.d_optimizer = torch.optim.Adam(disc.parameters(), lr=hp["lr_d"], betas=(0.5, 0.999))

    def d_step(self, real):
        z = torch.randn(real.size(0), self.hp["z_dim"])
        fake = self.gen(z).detach()
        self.d_optimizer.zero_grad()
        logits_real, logits_fake = self.disc(real), self.disc(fake)
        loss_d = F.binary_cross_entropy_with_logits(logits_real, torch.ones_like(logits_real)) + \
            F.binary_cross_entropy_with_logits(logits_fake, torch.zeros_like(logits_fake))
        loss_d.backward()
        self.d_optimizer.step()
        return loss_d.item()

    def g_step(self, batch_size):
        self.g_optimizer.zero_grad()
        logits = self.disc(self.gen(torch.randn(batch_size, self.hp["z_dim"])))
        loss_g = F.binary_cross_entropy_with_logits(logits, torch.ones_like(logits))
        loss_g.backward()
        self.d_optimizer.zero_grad()      # drop the discriminator grads leaked by loss_g
        self.g_optimizer.step()
        return loss_g.item()

    def fit(self, loader):
        for epoch in range(self.hp["epochs"]):
            for (real,) in loader:
                ld = self.d_step(real)
                lg = self.g_step(real.size(0))
            print(f"epoch {epoch}: loss_d={ld:.3f} loss_g={lg:.3f}")


def main():
    torch.manual_seed(0)
    gen, disc = build_generator(HP["z_dim"], HP["x_dim"]), build_discriminator(HP["x_dim"])
    trainer = GANTrainer(gen, disc, HP)
    real = torch.tanh(torch.randn(64, HP["x_dim"]) + 0.3)
    g_before = [p.detach().clone() for p in gen.parameters()]
    trainer.fit(DataLoader(TensorDataset(real), batch_size=HP["batch"], shuffle=True))
    assert any(not torch.equal(b, p) for b, p in zip(g_before, gen.parameters()))
    assert all(p.grad is None for p in disc.parameters())


if __name__ == "__main__":
    main()
    print("OK")
