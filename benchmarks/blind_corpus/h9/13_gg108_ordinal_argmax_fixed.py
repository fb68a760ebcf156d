"""GG108 (fixed) - the L1 loss uses a differentiable expected rating (soft-argmax).

Ordinal rating model (ratings 0..4). The author wants an L1 loss on the rating
distance. The fix trains on the expected rating sum_k k * softmax_k (which has
a gradient) and keeps argmax only for the accuracy metric.

Modelled on: https://php.bkmy88.com/faq/1835025.html
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

Epochs = 3
BATCH = 16
LR = 1e-2
N_RATINGS = 5


class RatingModel(nn.Module):
    def __init__(self, n_users, n_items, dim, n_ratings):
        super().__init__()
        self.user = nn.Embedding(n_users, dim)
        self.item = nn.Embedding(n_items, dim)
        self.mlp = nn.Sequential(nn.Linear(2 * dim, 32), nn.ReLU(), nn.Linear(32, n_ratings))

    def forward(self, u, i):
        return self.mlp(torch.cat([self.user(u), self.item(i)], dim=-1))


def decode_rating(logits):
    return torch.softmax(logits, dim=1).argmax(dim=1).type(torch.float32)


def expected_rating(logits):
    levels = torch.arange(logits.size(1), dtype=logits.dtype)
    return (torch.softmax(logits, dim=1) * levels).sum(dim=1)


def accuracy(y_true, y_pred):
    return (y_true == y_pred).float().mean().item() * 100


def main():
    torch.manual_seed(0)
    users = torch.randint(0, 20, (64,))
    items = torch.randint(0, 30, (64,))
    ratings = ((users + items) % N_RATINGS).float()
    loader = DataLoader(TensorDataset(users, items, ratings), batch_size=BATCH, shuffle=True)

    model = RatingModel(20, 30, 8, N_RATINGS)
    loss_fn = nn.L1Loss()
    optimiser = torch.optim.Adam(model.parameters(), lr=LR)

    for epoch in range(Epochs):
        model.train()
        epoch_loss, epoch_acc = 0.0, 0.0
        for u, i, y in loader:
            train_logits = model(u, i)
            train_preds = decode_rating(train_logits)
            loss = loss_fn(expected_rating(train_logits), y)
            epoch_acc += accuracy(y, train_preds)
            optimiser.zero_grad()
            loss.backward()  # fixed: GG108
            optimiser.step()
            epoch_loss += loss.item()
        print(f"Epoch {epoch} | loss {epoch_loss / len(loader):.3f} | acc {epoch_acc / len(loader):.1f}%")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
