"""GG202 - second backward() through a graph the first backward() already freed.

Controlled text generation: a GRU encoder/decoder VAE plus an attribute
discriminator. In ``train_vae_with_attr_loss`` the VAE loss is backpropagated
first; afterwards the attribute losses are computed from the decoder output of the
same forward pass and added to the VAE loss into ``total_vae_loss``, which is
backpropagated again. That second backward() needs the buffers of the encoder /
decoder graph that the first backward() released, and torch raises
  RuntimeError: Trying to backward through the graph a second time (or directly
  access saved tensors after they have already been freed) ...

Modelled on: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/8
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

# ---- hyper parameters -------------------------------------------------------
VOCAB = 30
EMBED = 16
HIDDEN = 24
Z_DIM = 8
C_DIM = 2
SEQ_LEN = 7
BATCH = 4
EPOCHS = 1
LAMBDA_C = 0.1
LAMBDA_Z = 0.1
KL_WEIGHT = 0.05
TEMPERATURE = 0.5


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMBED)
        self.rnn = nn.GRU(EMBED, HIDDEN, batch_first=True)
        self.to_mu = nn.Linear(HIDDEN, Z_DIM)
        self.to_logvar = nn.Linear(HIDDEN, Z_DIM)

    def forward(self, tokens=None, soft_tokens=None):
        if soft_tokens is not None:
            emb = soft_tokens @ self.embedding.weight
        else:
            emb = self.embedding(tokens)
        _, h = self.rnn(emb)
        h = h.squeeze(0)
        return self.to_mu(h), self.to_logvar(h)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.init_h = nn.Linear(Z_DIM + C_DIM, HIDDEN)
        self.embedding = nn.Embedding(VOCAB, EMBED)
        self.rnn = nn.GRU(EMBED, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, z, c, tokens):
        h0 = torch.tanh(self.init_h(torch.cat([z, c], dim=1))).unsqueeze(0)
        out, _ = self.rnn(self.embedding(tokens), h0)
        return self.out(out)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(VOCAB, EMBED)
        self.conv = nn.Conv1d(EMBED, 16, kernel_size=3, padding=1)
        self.fc = nn.Linear(16, C_DIM)

    def forward(self, soft_tokens):
        x = self.proj(soft_tokens).transpose(1, 2)
        x = F.relu(self.conv(x)).max(dim=2).values
        return self.fc(x)


def reparameterize(mu, logvar):
    std = torch.exp(0.5 * logvar)
    return mu + torch.randn_like(std) * std


def kl_divergence(mu, logvar):
    return -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))


def make_loader():
    tokens = torch.randint(0, VOCAB, (16, SEQ_LEN))
    attrs = torch.randint(0, C_DIM, (16,))
    return DataLoader(TensorDataset(tokens, attrs), batch_size=BATCH, shuffle=True)


def train_vae_with_attr_loss(encoder, decoder, discriminator, loader):
    vae_params = list(encoder.parameters()) + list(decoder.parameters())
    vae_optim = torch.optim.Adam(vae_params, lr=1e-3)
    for epoch in range(EPOCHS):
        for batch_idx, (tokens, attrs) in enumerate(loader):
            c = F.one_hot(attrs, C_DIM).float()
            mu, logvar = encoder(tokens)
            z = reparameterize(mu, logvar)
            logits = decoder(z, c, tokens)
            lang_loss = F.cross_entropy(logits.reshape(-1, VOCAB), tokens.reshape(-1))
            latent_loss = kl_divergence(mu, logvar)
            vae_loss = lang_loss + KL_WEIGHT * latent_loss
            vae_optim.zero_grad()
            vae_loss.backward()

            # attribute losses on the generated (soft) sentence
            soft = F.softmax(logits / TEMPERATURE, dim=-1)
            l_attr_c = F.cross_entropy(discriminator(soft), attrs)
            z_mu_gen, _ = encoder(soft_tokens=soft)
            l_attr_z = F.mse_loss(z_mu_gen, z)
            total_vae_loss = vae_loss + LAMBDA_C * l_attr_c + LAMBDA_Z * l_attr_z
            total_vae_loss.backward()  # bug: GG202
            vae_optim.step()
            print(f"Epoch {epoch} batch {batch_idx}'s average language loss: "
                  f"{lang_loss.item():.4f}, latent loss: {latent_loss.item():.4f}")
            print(f"l_attr_c loss: {l_attr_c.item():.4f}, l_attr_z loss: {l_attr_z.item():.4f}")


def main():
    torch.manual_seed(0)
    encoder, decoder, discriminator = Encoder(), Decoder(), Discriminator()
    train_vae_with_attr_loss(encoder, decoder, discriminator, make_loader())


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
