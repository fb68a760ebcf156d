"""GG608 look-alike - optimizer steps only the encoder; the loss is computed on the frozen decoder's output.

An encoder is trained to invert a pretrained, frozen decoder (GAN-inversion
style).  The optimizer holds only encoder parameters, and the reconstruction
loss is computed from decoder outputs -- which could look like "the optimizer
steps a model the loss never reaches".  But the decoder is frozen with
requires_grad_(False), not detached, so gradients flow through it into the
encoder (checked: encoder weights change, decoder weights do not).

Modelled on: none found (encoder-over-frozen-generator training)
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"latent": 8, "img": 16, "steps": 6, "batch": 8, "lr": 1e-3, "w_latent": 0.1}


class Decoder(nn.Module):
    def __init__(self, latent, img):
        super().__init__()
        self.img = img
        self.fc = nn.Linear(latent, 16 * (img // 4) ** 2)
        self.up = nn.Sequential(nn.ConvTranspose2d(16, 8, 4, 2, 1), nn.ReLU(),
                                nn.ConvTranspose2d(8, 1, 4, 2, 1), nn.Tanh())

    def forward(self, z):
        h = self.fc(z).view(z.size(0), 16, self.img // 4, self.img // 4)
        return self.up(h)


class Encoder(nn.Module):
    def __init__(self, latent):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 8, 4, 2, 1), nn.LeakyReLU(0.2),
                                 nn.Conv2d(8, 16, 4, 2, 1), nn.LeakyReLU(0.2),
                                 nn.Flatten(), nn.LazyLinear(latent))

    def forward(self, x):
        return self.net(x)


def load_frozen_decoder(path):
    dec = Decoder(CFG["latent"], CFG["img"])
    dec.load_state_dict(torch.load(path))
    dec.eval()
    dec.requires_grad_(False)
    return dec


def inversion_losses(encoder, decoder, z_true):
    with torch.no_grad():
        target = decoder(z_true)
    z_hat = encoder(target)
    recon = decoder(z_hat)
    return {"pixel": F.mse_loss(recon, target), "latent": F.mse_loss(z_hat, z_true)}


def train_encoder(encoder, decoder):
    opt = torch.optim.Adam(encoder.parameters(), lr=CFG["lr"])
    for step in range(CFG["steps"]):
        z = torch.randn(CFG["batch"], CFG["latent"])
        losses = inversion_losses(encoder, decoder, z)
        total = losses["pixel"] + CFG["w_latent"] * losses["latent"]
        opt.zero_grad()
        total.backward()
        opt.step()
        print(f"step {step}: " + ", ".join(f"{k}={v.item():.4f}" for k, v in losses.items()))


def main():
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "decoder.pt")
        torch.save(Decoder(CFG["latent"], CFG["img"]).state_dict(), path)
        decoder = load_frozen_decoder(path)
    encoder = Encoder(CFG["latent"])
    encoder(torch.zeros(1, 1, CFG["img"], CFG["img"]))  # materialise the lazy layer
    enc_before = [p.detach().clone() for p in encoder.parameters()]
    dec_before = [p.detach().clone() for p in decoder.parameters()]
    # latent term disabled for the check: only the pixel loss through the decoder remains
    CFG["w_latent"] = 0.0
    train_encoder(encoder, decoder)
    assert all(not torch.equal(a, b) for a, b in zip(enc_before, encoder.parameters()))
    assert all(torch.equal(a, b) for a, b in zip(dec_before, decoder.parameters()))


if __name__ == "__main__":
    main()
    print("OK")
