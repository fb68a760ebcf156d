"""GG609 look-alike - clip_grad_norm_ in a loop that uses a GradScaler, on unscaled gradients.

The generator is trained with autocast + GradScaler; the critic is small and
trained in plain fp32 with its own optimizer and gradient clipping.  The clip
call sits right next to scaler code, but it acts on the critic's gradients,
which come from an ordinary d_loss.backward() and were never multiplied by
the loss scale.  Checked: the critic's applied gradient norm equals max_norm.

Modelled on: none found (mixed AMP / fp32 GAN training loop)
"""
import torch
import torch.nn as nn

CFG = dict(z_dim=8, x_dim=16, hidden=64, lr_g=2e-4, lr_d=0.05, clip_d=0.5, steps=4, batch=32)


def mlp(i, o, h):
    return nn.Sequential(nn.Linear(i, h), nn.LeakyReLU(0.2), nn.Linear(h, h), nn.LeakyReLU(0.2),
                         nn.Linear(h, o))


class Trainer:
    def __init__(self, cfg, device="cpu"):
        self.cfg, self.device = cfg, device
        self.G = mlp(cfg["z_dim"], cfg["x_dim"], cfg["hidden"])
        self.D = mlp(cfg["x_dim"], 1, cfg["hidden"])
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=cfg["lr_g"], betas=(0.5, 0.999))
        self.opt_d = torch.optim.SGD(self.D.parameters(), lr=cfg["lr_d"])
        self.scaler = torch.amp.GradScaler(device)
        self.bce = nn.BCEWithLogitsLoss()
        self.d_applied_norm = []

    def d_step(self, real):
        z = torch.randn(real.size(0), self.cfg["z_dim"])
        with torch.no_grad():
            fake = self.G(z)
        before = [p.detach().clone() for p in self.D.parameters()]
        self.opt_d.zero_grad()
        d_loss = self.bce(self.D(real), torch.ones(real.size(0), 1)) + \
            self.bce(self.D(fake), torch.zeros(real.size(0), 1))
        d_loss.backward()
        nn.utils.clip_grad_norm_(self.D.parameters(), self.cfg["clip_d"])
        self.opt_d.step()
        delta = sum(((b - p) ** 2).sum() for b, p in zip(before, self.D.parameters()))
        self.d_applied_norm.append((delta.sqrt() / self.cfg["lr_d"]).item())
        return d_loss.item()

    def g_step(self, n):
        self.opt_g.zero_grad()
        with torch.autocast(self.device, dtype=torch.bfloat16):
            fake = self.G(torch.randn(n, self.cfg["z_dim"]))
            logits = self.D(fake)
        g_loss = self.bce(logits.float(), torch.ones(n, 1))
        self.scaler.scale(g_loss).backward()
        self.scaler.step(self.opt_g)
        self.scaler.update()
        return g_loss.item()

    def train(self, data):
        for step in range(self.cfg["steps"]):
            real = data[torch.randint(0, len(data), (self.cfg["batch"],))]
            d = self.d_step(real)
            g = self.g_step(self.cfg["batch"])
            print(f"step {step}: d {d:.4f} g {g:.4f} scale {self.scaler.get_scale():.0f}")


def main():
    torch.manual_seed(0)
    data = torch.randn(256, CFG["x_dim"]) * 3 + 2
    t = Trainer(CFG)
    t.train(data)
    for n in t.d_applied_norm:
        assert n <= CFG["clip_d"] * 1.01 and n > 1e-3


if __name__ == "__main__":
    main()
    print("OK")
