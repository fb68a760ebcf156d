"""GG108 look-alike - VQ-VAE quantiser picks codes with argmin (straight-through).

The quantiser chooses code indices with torch.argmin and looks them up, which
on its own carries no gradient to the encoder.  The straight-through trick
z + (z_q - z).detach() and the codebook/commitment terms keep every loss term
connected to trainable tensors, so backward() updates encoder, decoder and
codebook.  Prints OK.

Modelled on: none found
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class VectorQuantizer(nn.Module):
    def __init__(self, num_codes=16, dim=8, beta=0.25):
        super().__init__()
        self.codebook = nn.Embedding(num_codes, dim)
        self.codebook.weight.data.uniform_(-1 / num_codes, 1 / num_codes)
        self.beta = beta

    def forward(self, z):
        flat = z.permute(0, 2, 3, 1).reshape(-1, z.shape[1])
        dist = (flat.pow(2).sum(1, keepdim=True) - 2 * flat @ self.codebook.weight.t()
                + self.codebook.weight.pow(2).sum(1))
        idx = torch.argmin(dist, dim=1)
        z_q = self.codebook(idx).view(z.shape[0], z.shape[2], z.shape[3], -1).permute(0, 3, 1, 2)
        codebook_loss = F.mse_loss(z_q, z.detach())
        commit_loss = F.mse_loss(z, z_q.detach())
        z_q = z + (z_q - z).detach()
        perplexity = torch.exp(-torch.sum(F.one_hot(idx, self.codebook.num_embeddings).float().mean(0)
                                          * torch.log(F.one_hot(idx, self.codebook.num_embeddings).float().mean(0) + 1e-10)))
        return z_q, codebook_loss + self.beta * commit_loss, perplexity


class VQVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 16, 4, 2, 1), nn.ReLU(), nn.Conv2d(16, 8, 3, 1, 1))
        self.vq = VectorQuantizer()
        self.decoder = nn.Sequential(nn.ConvTranspose2d(8, 16, 4, 2, 1), nn.ReLU(), nn.Conv2d(16, 1, 3, 1, 1))

    def forward(self, x):
        z_q, vq_loss, perplexity = self.vq(self.encoder(x))
        return self.decoder(z_q), vq_loss, perplexity


def train_step(model, optimizer, batch):
    optimizer.zero_grad()
    recon, vq_loss, perplexity = model(batch)
    recon_loss = F.mse_loss(recon, batch)
    loss = recon_loss + vq_loss
    loss.backward()
    optimizer.step()
    return {"recon": recon_loss.item(), "vq": vq_loss.item(), "perplexity": perplexity.item()}


def main():
    torch.manual_seed(0)
    model = VQVAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    data = torch.rand(16, 1, 8, 8)
    enc0 = model.encoder[0].weight.detach().clone()
    for step in range(4):
        logs = train_step(model, optimizer, data[step * 4:(step + 1) * 4])
        print(f"step {step}: " + ", ".join(f"{k}={v:.4f}" for k, v in logs.items()))
    assert model.encoder[0].weight.grad is not None
    assert not torch.equal(enc0, model.encoder[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
