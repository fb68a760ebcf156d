"""GG109 - requires_grad forced on a triplet loss that has no history.

Category: GG109 (requires_grad set on a loss without history: trains nothing).
The mistake: the keyword-spotting encoder L2-normalises its embeddings in
NumPy and wraps the result back with torch.from_numpy, which cuts the
graph.  backward() then complained that the loss does not require grad, so
the triplet loss was patched with `mean_losses.requires_grad = True`.
Now backward() runs, but the loss is a fresh leaf: no gradient reaches the
encoder, the optimizer has nothing to apply, and the weights never change.
This file: FIXED version - normalisation stays in torch (F.normalize), so
the loss has a real graph and the forced requires_grad is dropped.
Modelled on: https://github.com/roman-vygon/triplet_loss_kws/issues/6
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

N_MELS, FRAMES, EMB_DIM, N_WORDS = 20, 30, 16, 4


class L2Norm(nn.Module):
    def forward(self, x):
        return F.normalize(x, dim=1, eps=1e-8)


class KWSEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(N_MELS, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
                                  nn.Conv1d(32, 32, 5, padding=2), nn.ReLU())
        self.gru = nn.GRU(32, 32, batch_first=True)
        self.proj = nn.Linear(32, EMB_DIM)
        self.l2 = L2Norm()

    def forward(self, mels):
        h = self.conv(mels).transpose(1, 2)
        _, last = self.gru(h)
        return self.l2(self.proj(last[-1]))


class TripletLoss(nn.Module):
    def __init__(self, margin=0.5):
        super().__init__()
        self.margin = margin

    def forward(self, embeddings, labels):
        dist = torch.cdist(embeddings, embeddings)
        same = labels[:, None] == labels[None, :]
        hardest_pos = (dist * same.float()).max(1).values
        hardest_neg = (dist + 1e3 * same.float()).min(1).values
        losses = torch.relu(hardest_pos - hardest_neg + self.margin)
        mean_losses = losses.mean()
        return mean_losses  # fixed: GG109


def train(model, loader, criterion, optimizer, epochs):
    for epoch in range(epochs):
        running = 0.0
        for mels, words in loader:
            emb = model(mels)
            loss = criterion(emb, words)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
        print(f"epoch {epoch}: triplet loss {running / len(loader):.4f}")


def main():
    torch.manual_seed(0)
    mels = torch.randn(32, N_MELS, FRAMES)
    words = torch.arange(32) % N_WORDS
    loader = DataLoader(TensorDataset(mels, words), batch_size=16, shuffle=True)
    model = KWSEncoder()
    snapshot = {k: v.clone() for k, v in model.state_dict().items() if "weight" in k}
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    train(model, loader, TripletLoss(), optimizer, epochs=2)
    return model, snapshot


if __name__ == "__main__":
    model, snapshot = main()
    state = model.state_dict()
    unchanged = all(torch.equal(v, state[k]) for k, v in snapshot.items())
    no_grads = all(p.grad is None for p in model.parameters())
    assert not unchanged and not no_grads
    print("FIXED: ok")
