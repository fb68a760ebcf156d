"""GG202 look-alike: two backward() calls per step that are both legitimate.

Category GG202 (look-alike, no bug). A siamese encoder is trained with two objectives on
the same embeddings. The first backward() passes retain_graph=True, so the shared graph is
still there for the second one. The auxiliary "domain" loss further down also calls
backward() twice in one step, but each call is on a graph built by its own forward pass,
so no graph is ever traversed after it was freed.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class SiameseEncoder(nn.Module):
    def __init__(self, d_in=10, d_emb=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.GELU(), nn.Linear(32, d_emb))

    def forward(self, a, b):
        return F.normalize(self.net(a), dim=-1), F.normalize(self.net(b), dim=-1)


def contrastive_loss(za, zb, same, margin=0.5):
    dist = (za - zb).pow(2).sum(-1)
    return (same * dist + (1 - same) * F.relu(margin - dist)).mean()


def alignment_loss(za, zb):
    return (1 - (za * zb).sum(-1)).mean()


def domain_step(model, optimizer, batches):
    optimizer.zero_grad()
    for xs in batches:
        za, zb = model(xs, xs + 0.01 * torch.randn_like(xs))
        loss = alignment_loss(za, zb) / len(batches)
        loss.backward()
    optimizer.step()


def train(model, loader, optimizer, epochs=2):
    for epoch in range(epochs):
        logs = []
        for a, b, same in loader:
            optimizer.zero_grad()
            za, zb = model(a, b)
            l_con = contrastive_loss(za, zb, same)
            l_align = 0.1 * alignment_loss(za, zb)
            l_con.backward(retain_graph=True)
            l_align.backward()
            optimizer.step()
            logs.append((l_con.item(), l_align.item()))
        domain_step(model, optimizer, [a[:4], b[:4]])
        print(f"epoch {epoch}: con {sum(l for l, _ in logs) / len(logs):.3f}")


def main():
    torch.manual_seed(4)
    a = torch.randn(40, 10)
    b = a + 0.1 * torch.randn(40, 10)
    same = (torch.rand(40) > 0.5).float()
    b[same == 0] = torch.randn(int((same == 0).sum()), 10)
    loader = DataLoader(TensorDataset(a, b, same), batch_size=8, shuffle=True)
    model = SiameseEncoder()
    train(model, loader, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))


if __name__ == "__main__":
    main()
    print("OK")
