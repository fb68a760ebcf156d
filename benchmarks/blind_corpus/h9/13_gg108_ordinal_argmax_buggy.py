"""GG108 - the loss is computed from argmax predictions, which have no gradient.

Ordinal rating model (ratings 0..4). The author wants an L1 loss on the rating
distance, so the helper decode_rating() turns logits into a rating with
softmax(...).argmax(...).float() and the L1 loss is computed on that. argmax is
not differentiable (its output is an integer index without grad_fn), so the loss
does not require grad and torch raises at backward():
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

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
            loss = loss_fn(train_preds, y)
            epoch_acc += accuracy(y, train_preds)
            optimiser.zero_grad()
            loss.backward()  # bug: GG108
            optimiser.step()
            epoch_loss += loss.item()
        print(f"Epoch {epoch} | loss {epoch_loss / len(loader):.3f} | acc {epoch_acc / len(loader):.1f}%")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
