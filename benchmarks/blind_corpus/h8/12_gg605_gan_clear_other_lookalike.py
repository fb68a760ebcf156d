"""GG605 look-alike - a zero_grad() between backward() and step(), but of the *other* optimizer.

In the generator update, `g_loss.backward()` also fills the discriminator's
`.grad` (the loss goes through D).  The script then calls `d_opt.zero_grad()`
to throw those unwanted D gradients away, and only afterwards `g_opt.step()`.
The order "backward -> zero_grad -> step" looks like the bug, but the cleared
optimizer (D) is not the one being stepped (G), so G's gradients are intact.
Correct: both networks train, and D starts its next update from clean gradients.

Modelled on: https://github.com/devnag/pytorch-generative-adversarial-networks/issues/14
"""
import torch
import torch.nn as nn

HP = {"z_dim": 4, "data_dim": 2, "hidden": 32, "steps": 30, "batch": 64, "lr_g": 2e-3, "lr_d": 2e-3}


def sample_real(n):
    """Points on a noisy ring."""
    angle = torch.rand(n) * 6.2832
    r = 2.0 + 0.1 * torch.randn(n)
    return torch.stack([r * torch.cos(angle), r * torch.sin(angle)], dim=1)


def mlp(d_in, d_out, hidden):
    return nn.Sequential(nn.Linear(d_in, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, hidden),
                         nn.LeakyReLU(0.2), nn.Linear(hidden, d_out))


class GANTrainer:
    def __init__(self, hp):
        self.hp = hp
        self.G = mlp(hp["z_dim"], hp["data_dim"], hp["hidden"])
        self.D = mlp(hp["data_dim"], 1, hp["hidden"])
        self.g_opt = torch.optim.Adam(self.G.parameters(), lr=hp["lr_g"], betas=(0.5, 0.999))
        self.d_opt = torch.optim.Adam(self.D.parameters(), lr=hp["lr_d"], betas=(0.5, 0.999))
        self.bce = nn.BCEWithLogitsLoss()
        self.history = {"d": [], "g": []}

    def d_step(self, real):
        z = torch.randn(real.size(0), self.hp["z_dim"])
        fake = self.G(z).detach()
        self.d_opt.zero_grad()
        d_loss = self.bce(self.D(real), torch.ones(real.size(0), 1)) + \
            self.bce(self.D(fake), torch.zeros(real.size(0), 1))
        d_loss.backward()
        self.d_opt.step()
        return d_loss.item()

    def g_step(self, n):
        self.g_opt.zero_grad()
        z = torch.randn(n, self.hp["z_dim"])
        g_loss = self.bce(self.D(self.G(z)), torch.ones(n, 1))
        g_loss.backward()
        self.d_opt.zero_grad()  # drop the D gradients produced by the G loss
        self.g_opt.step()
        return g_loss.item()

    def train(self):
        for step in range(self.hp["steps"]):
            real = sample_real(self.hp["batch"])
            self.history["d"].append(self.d_step(real))
            self.history["g"].append(self.g_step(self.hp["batch"]))
            if step % 10 == 0:
                print(f"step {step:3d}  D {self.history['d'][-1]:.3f}  G {self.history['g'][-1]:.3f}")


def check_training():
    torch.manual_seed(0)
    trainer = GANTrainer(HP)
    g0 = [p.detach().clone() for p in trainer.G.parameters()]
    d0 = [p.detach().clone() for p in trainer.D.parameters()]
    trainer.train()
    assert all(not torch.equal(p, q) for p, q in zip(trainer.G.parameters(), g0)), "G did not train"
    assert all(not torch.equal(p, q) for p, q in zip(trainer.D.parameters(), d0)), "D did not train"
    assert all(p.grad is None for p in trainer.D.parameters()), "D kept gradients from the G loss"


if __name__ == "__main__":
    check_training()
    print("OK")
