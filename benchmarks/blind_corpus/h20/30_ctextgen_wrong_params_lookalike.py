"""GG608 look-alike - an optimizer over one sub-network stepping a loss computed by another.

The generator phase scores the decoded soft sentences with the discriminator
and steps trainer_G, which only holds the decoder's parameters. The loss is
produced by the discriminator module, but it is a function of the decoder
output, so the gradient does reach every decoder parameter and trainer_G
updates them.

Modelled on: https://github.com/wiseodd/controlled-text-generation/issues/15
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

N_VOCAB, H, Z, C, SEQ, MB = 40, 16, 8, 2, 7, 6


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(Z + C, H)
        self.fc = nn.Linear(H, N_VOCAB)

    def forward(self, z, c, temp=1.0):
        inp = torch.cat([z, c], 1).unsqueeze(0).expand(SEQ, -1, -1).contiguous()
        out, _ = self.rnn(inp)
        return F.softmax(self.fc(out) / temp, dim=-1)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Linear(N_VOCAB, H, bias=False)
        self.conv = nn.Conv1d(H, 8, 3, padding=1)
        self.fc = nn.Linear(8, C)

    def forward(self, soft_words):
        x = self.emb(soft_words).permute(1, 2, 0)
        return self.fc(F.relu(self.conv(x)).max(2).values)


def main():
    torch.manual_seed(0)
    decoder, disc = Decoder(), Discriminator()
    trainer_G = torch.optim.Adam(decoder.parameters(), lr=1e-3)
    disc.requires_grad_(False)
    before = [p.detach().clone() for p in decoder.parameters()]
    for it in range(3):
        z = torch.randn(MB, Z)
        c_idx = torch.randint(0, C, (MB,))
        soft = decoder(z, F.one_hot(c_idx, C).float(), temp=0.5)
        loss_attr = F.cross_entropy(disc(soft), c_idx)
        trainer_G.zero_grad()
        loss_attr.backward()
        trainer_G.step()
        print(f"iter-{it}; loss_attr_c: {loss_attr.item():.4f}")
    assert all(not torch.equal(a, b.detach()) for a, b in zip(before, decoder.parameters()))


if __name__ == "__main__":
    main()
    print("OK")
