"""GG601 look-alike - no optimizer.zero_grad() call, but gradients are cleared by hand.

The loop never calls optimizer.zero_grad(); instead the trainer resets the
transformer's gradients itself after every step (p.grad = None, the same thing
zero_grad(set_to_none=True) does). Every step uses a fresh gradient.

Modelled on: https://github.com/LoreGoetschalckx/GANalyze/issues/7
"""
import torch
import torch.nn as nn

LATENT, IMG, BATCH, ITERS = 12, 20, 8, 4


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(LATENT, 32), nn.ReLU(), nn.Linear(32, IMG), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Assessor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(IMG, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x).squeeze(1)


class DirectionTrainer:
    def __init__(self, generator, assessor, lr=2e-3):
        self.generator = generator.requires_grad_(False).eval()
        self.assessor = assessor.requires_grad_(False).eval()
        self.w = nn.Parameter(torch.randn(1, LATENT) * 0.1)
        self.optimizer = torch.optim.Adam([self.w], lr=lr)
        self.criterion = nn.MSELoss()

    def clear_grads(self):
        for group in self.optimizer.param_groups:
            for p in group["params"]:
                p.grad = None

    def step(self, z, alpha):
        with torch.no_grad():
            target = (self.assessor(self.generator(z)) + alpha).clamp(0, 1)
        score = self.assessor(self.generator(z + alpha[:, None] * self.w))
        loss = self.criterion(score, target)
        expected = torch.autograd.grad(loss, self.w, retain_graph=True)[0]
        loss.backward()
        assert torch.allclose(self.w.grad, expected)
        self.optimizer.step()
        self.clear_grads()
        return loss.item()


def main():
    torch.manual_seed(0)
    trainer = DirectionTrainer(Generator(), Assessor())
    for it in range(ITERS):
        loss = trainer.step(torch.randn(BATCH, LATENT), torch.rand(BATCH) - 0.5)
        print(f"[{it}] loss {loss:.5f}")


if __name__ == "__main__":
    main()
    print("OK")
