"""A VAE steps between two backward passes through its own sampling forward (GG205).

Total-correlation VAEs train a small critic on the latent codes. The report
(https://github.com/YannDubs/disentangling-vae/issues/62, the same shape as
https://github.com/1Konny/FactorVAE/issues/15): the VAE loss is backpropagated with
`retain_graph=True`, the VAE's optimizer steps, and then the critic's loss, which reuses
the critic's scores of the latent sample, is backpropagated. That second pass runs back
through the VAE's forward to its encoder, whose second nn.Linear saved its weight to
backpropagate into the first; the step changed that weight in place, and torch 2.13.0
raises "one of the variables needed for gradient computation has been modified by an
inplace operation" (checked below).

The VAE's forward is no straight chain of layers: it splits the encoder's output with
`chunk`, samples through a helper method, and returns either the latent sample or a tuple.
Every value it can return is computed from the encoder's output, so any backward from a
call of the VAE runs through the encoder.

Look-alikes that run: the step moved after the critic's backward (the fix the report's
maintainer adopted); a critic scoring a detached latent; a VAE whose encoder is a single
nn.Linear on plain data (it keeps no weight, so the second pass works).
"""

import torch
import torch.nn.functional as F
from torch import nn


class SamplingVAE(nn.Module):
    def __init__(self, x_dim=10, z_dim=3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(x_dim, 16), nn.Tanh(), nn.Linear(16, 2 * z_dim))
        self.decoder = nn.Linear(z_dim, x_dim)

    def sample(self, mean, log_var):
        return mean + torch.randn_like(mean) * torch.exp(log_var / 2)

    def forward(self, x, latent_only=False):
        stats = self.encoder(x)
        mean, log_var = stats.chunk(2, dim=1)
        latent = self.sample(mean, log_var)
        if latent_only:
            return latent
        return self.decoder(latent), mean, log_var, latent


class PlainEncoderVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(10, 6)
        self.decoder = nn.Linear(3, 10)

    def forward(self, x):
        stats = self.encoder(x)
        mean, log_var = stats.chunk(2, dim=1)
        latent = mean + torch.randn_like(mean) * torch.exp(log_var / 2)
        return self.decoder(latent), mean, log_var, latent


def vae_terms(recon, x, mean, log_var, scores):
    kl = -0.5 * (1 + log_var - mean.pow(2) - log_var.exp()).sum(1).mean()
    return F.mse_loss(recon, x) + kl + (scores[:, 0] - scores[:, 1]).mean()


def critic_loss(scores, shuffled_scores):
    n = scores.size(0)
    fake = torch.zeros(n, dtype=torch.long)
    real = torch.ones(n, dtype=torch.long)
    return F.cross_entropy(scores, fake) + F.cross_entropy(shuffled_scores, real)


def shuffle_dims(z):
    return torch.stack([z[torch.randperm(z.size(0)), j] for j in range(z.size(1))], dim=1)


class TCTrainer:
    def __init__(self):
        self.vae = SamplingVAE()
        self.critic = nn.Sequential(nn.Linear(3, 16), nn.LeakyReLU(0.2), nn.Linear(16, 2))
        self.vae_opt = torch.optim.Adam(self.vae.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-4)

    def train_step(self, x, x_other):
        recon, mean, log_var, latent = self.vae(x)
        scores = self.critic(latent)
        vae_loss = vae_terms(recon, x, mean, log_var, scores)
        self.vae_opt.zero_grad()
        vae_loss.backward(retain_graph=True)
        self.vae_opt.step()  # expect: GG205
        other = shuffle_dims(self.vae(x_other, latent_only=True)).detach()
        loss = critic_loss(scores, self.critic(other))
        self.critic_opt.zero_grad()
        loss.backward()
        self.critic_opt.step()

    def step_after_both(self, x, x_other):
        recon, mean, log_var, latent = self.vae(x)
        scores = self.critic(latent)
        vae_loss = vae_terms(recon, x, mean, log_var, scores)
        self.vae_opt.zero_grad()
        vae_loss.backward(retain_graph=True)
        other = shuffle_dims(self.vae(x_other, latent_only=True)).detach()
        loss = critic_loss(scores, self.critic(other))
        self.critic_opt.zero_grad()
        loss.backward()
        self.vae_opt.step()
        self.critic_opt.step()

    def step_detached_critic(self, x, x_other):
        recon, mean, log_var, latent = self.vae(x)
        scores = self.critic(latent)
        vae_loss = vae_terms(recon, x, mean, log_var, scores)
        self.vae_opt.zero_grad()
        vae_loss.backward(retain_graph=True)
        self.vae_opt.step()
        other = shuffle_dims(self.vae(x_other, latent_only=True)).detach()
        loss = critic_loss(self.critic(latent.detach()), self.critic(other))
        self.critic_opt.zero_grad()
        loss.backward()
        self.critic_opt.step()


class PlainTrainer:
    def __init__(self):
        self.model = PlainEncoderVAE()
        self.critic = nn.Sequential(nn.Linear(3, 16), nn.LeakyReLU(0.2), nn.Linear(16, 2))
        self.model_opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-4)

    def update(self, x):
        recon, mean, log_var, latent = self.model(x)
        scores = latent.pow(2)
        vae_loss = vae_terms(recon, x, mean, log_var, scores[:, :2])
        self.model_opt.zero_grad()
        vae_loss.backward(retain_graph=True)
        self.model_opt.step()
        loss = latent.abs().mean()
        self.critic_opt.zero_grad()
        loss.backward()
        self.critic_opt.step()


def main():
    torch.manual_seed(0)
    x, x_other = torch.randn(8, 10), torch.randn(8, 10)
    trainer = TCTrainer()
    trainer.step_after_both(x, x_other)
    trainer.step_detached_critic(x, x_other)
    PlainTrainer().update(x)
    try:
        trainer.train_step(x, x_other)
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the critic's backward to fail")


if __name__ == "__main__":
    main()
