"""Look-alike: adversarial recon loss whose value is also logged with .item().

Modelled on: https://github.com/guopengf/FL-MRCM/issues/10 (counterpart)

Same federated reconstruction update as the report, but ``.item()`` is only
applied to a *copy* of the adversarial loss that is stored for logging; the
tensor itself is added to the L1 loss before ``backward()``, so the
discriminator's gradient reaches the reconstruction network.  Correct code.
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ReconNet(nn.Module):
    """Tiny encoder/decoder that also returns its latent code."""

    def __init__(self, ch=8):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, ch, 3, padding=1), nn.ReLU())
        self.dec = nn.Conv2d(ch, 1, 3, padding=1)

    def forward(self, x):
        z = self.enc(x)
        return self.dec(z), z


class FeatureDiscriminator(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.net = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(ch, 2))

    def forward(self, z):
        return self.net(z)


class LocalUpdateAdDA:
    def __init__(self, args, dataset, dataset_target, optimizer, optimizer_fd):
        self.args = args
        self.loss_func = nn.L1Loss()
        self.adv_loss = nn.BCEWithLogitsLoss()
        self.ldr_train = DataLoader(dataset, batch_size=args.local_bs, shuffle=False)
        self.target_domain = DataLoader(dataset_target, batch_size=args.local_bs, shuffle=False)
        self.optimizer = optimizer
        self.optimizer_fd = optimizer_fd
        self.adv_log = []

    @staticmethod
    def set_requires_grad(net, requires_grad=False):
        for param in net.parameters():
            param.requires_grad = requires_grad

    def domain_codes(self, n_src, n_tgt):
        src = torch.tensor([[1.0, 0.0]]).repeat(n_src, 1)
        tgt = torch.tensor([[0.0, 1.0]]).repeat(n_tgt, 1)
        return src, tgt

    def generator_loss(self, net, net_fd, batch, batch_t):
        inp, target = batch
        inp_t, _ = batch_t
        output, z = net(inp)
        _, z_t = net(inp_t)
        src_code, tgt_code = self.domain_codes(inp.shape[0], inp_t.shape[0])
        self.set_requires_grad(net_fd, False)
        loss_adv_g = (self.adv_loss(net_fd(z), src_code)
                      + self.adv_loss(net_fd(z_t), tgt_code)) / 2
        self.adv_log.append(loss_adv_g.item())
        l1_loss = self.loss_func(output, target)
        return l1_loss, loss_adv_g

    def train(self, net, net_fd):
        net.train()
        net_fd.train()
        batch_loss = []
        for batch, batch_t in zip(self.ldr_train, self.target_domain):
            net.zero_grad()
            l1_loss, loss_adv_g = self.generator_loss(net, net_fd, batch, batch_t)
            loss = l1_loss + self.args.adv_weight * loss_adv_g
            loss.backward()
            self.optimizer.step()
            # only the logged value is converted to a Python float
            batch_loss.append(loss.detach().item())
        return net.state_dict(), sum(batch_loss) / len(batch_loss)


def synthetic_sites(n=8, size=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 1, size, size, generator=g)
    return TensorDataset(x, x + 0.1 * torch.randn(n, 1, size, size, generator=g))


def adversarial_grad_reaches_encoder(local, net, net_fd):
    """Gradient of the generator loss minus that of the L1 term alone."""
    batch = next(iter(local.ldr_train))
    batch_t = next(iter(local.target_domain))
    net.zero_grad()
    l1_loss, adv = local.generator_loss(net, net_fd, batch, batch_t)
    (l1_loss + local.args.adv_weight * adv).backward()
    full = net.enc[0].weight.grad.clone()
    net.zero_grad()
    l1_loss, _ = local.generator_loss(net, net_fd, batch, batch_t)
    l1_loss.backward()
    return not torch.allclose(full, net.enc[0].weight.grad)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_bs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--adv_weight", type=float, default=1.0)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    net, net_fd = ReconNet(), FeatureDiscriminator()
    opt = torch.optim.RMSprop(net.parameters(), lr=args.lr)
    opt_fd = torch.optim.RMSprop(net_fd.parameters(), lr=args.lr)
    local = LocalUpdateAdDA(args, synthetic_sites(seed=0), synthetic_sites(seed=1), opt, opt_fd)
    local.train(net, net_fd)
    return adversarial_grad_reaches_encoder(local, net, net_fd)


if __name__ == "__main__":
    assert main([])
    print("OK")
