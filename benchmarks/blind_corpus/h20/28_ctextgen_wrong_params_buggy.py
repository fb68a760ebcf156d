"""GG608 - the discriminator's optimizer is built over parameters its loss never reaches.

Mistake: train_discriminator.py builds one Adam per sub-network from the
parameter lists the RNN_VAE model exposes. trainer_D is given
model.encoder_params by mistake; the discriminator loss only depends on the
discriminator's own embedding/conv/linear layers, so the encoder gets no
gradient from it and trainer_D.step() changes nothing.
Silent effect: after several discriminator updates its weights are unchanged.

Modelled on: https://github.com/wiseodd/controlled-text-generation/issues/15
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args(argv=None):
    p = argparse.ArgumentParser(description="Conditional text VAE: discriminator phase")
    p.add_argument("--n_vocab", type=int, default=40)
    p.add_argument("--h_dim", type=int, default=16)
    p.add_argument("--z_dim", type=int, default=8)
    p.add_argument("--c_dim", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--num_iterations", type=int, default=4)
    p.add_argument("--mbsize", type=int, default=6)
    p.add_argument("--seq_len", type=int, default=7)
    return p.parse_args(argv)


class RNN_VAE(nn.Module):
    def __init__(self, n_vocab, h_dim, z_dim, c_dim):
        super().__init__()
        self.word_emb = nn.Embedding(n_vocab, h_dim)
        self.encoder = nn.GRU(h_dim, h_dim)
        self.q_mu = nn.Linear(h_dim, z_dim)
        self.q_logvar = nn.Linear(h_dim, z_dim)
        self.decoder = nn.GRU(h_dim + z_dim + c_dim, z_dim + c_dim)
        self.decoder_fc = nn.Linear(z_dim + c_dim, n_vocab)
        self.disc_emb = nn.Embedding(n_vocab, h_dim)
        self.conv = nn.Conv1d(h_dim, 8, 3, padding=1)
        self.disc_fc = nn.Linear(8, c_dim)

        self.encoder_params = (list(self.encoder.parameters()) + list(self.q_mu.parameters())
                               + list(self.q_logvar.parameters()))
        self.decoder_params = list(self.decoder.parameters()) + list(self.decoder_fc.parameters())
        self.discriminator_params = (list(self.disc_emb.parameters()) + list(self.conv.parameters())
                                     + list(self.disc_fc.parameters()))

    def forward_encoder(self, inputs):
        _, h = self.encoder(self.word_emb(inputs))
        return self.q_mu(h[-1]), self.q_logvar(h[-1])

    def forward_discriminator(self, inputs):
        x = self.disc_emb(inputs.t()).transpose(1, 2)
        x = F.relu(self.conv(x)).max(dim=2).values
        return self.disc_fc(F.dropout(x, 0.5, self.training))


def sample_labelled(args, seed):
    g = torch.Generator().manual_seed(seed)
    inputs = torch.randint(0, args.n_vocab, (args.seq_len, args.mbsize), generator=g)
    labels = torch.randint(0, args.c_dim, (args.mbsize,), generator=g)
    return inputs, labels


def main(argv=None):
    args = get_args(argv)
    torch.manual_seed(0)
    model = RNN_VAE(args.n_vocab, args.h_dim, args.z_dim, args.c_dim)

    trainer_D = torch.optim.Adam(model.encoder_params, lr=args.lr)  # bug: GG608
    trainer_G = torch.optim.Adam(model.decoder_params, lr=args.lr)
    trainer_E = torch.optim.Adam(model.encoder_params, lr=args.lr)

    disc_before = [p.detach().clone() for p in model.discriminator_params]
    model.train()
    for it in range(args.num_iterations):
        inputs, labels = sample_labelled(args, it)
        y_disc = model.forward_discriminator(inputs)
        loss_s = F.cross_entropy(y_disc, labels)
        loss_D = loss_s
        loss_D.backward()
        nn.utils.clip_grad_norm_(model.discriminator_params, 5)
        trainer_D.step()
        trainer_D.zero_grad()
        model.zero_grad()
        print(f"iter-{it}; loss_D: {loss_D.item():.4f}")
    return all(torch.equal(a, b.detach()) for a, b in zip(disc_before, model.discriminator_params))


if __name__ == "__main__":
    unchanged = main([])
    try:
        assert not unchanged, "discriminator weights never changed: trainer_D steps other parameters"
    except AssertionError as e:
        print(f"BUGGY: {e}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
