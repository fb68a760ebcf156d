"""GG111 - fixed version: NeuMF.forward() returns logits.

The trailing torch.sigmoid is removed, so BCEWithLogitsLoss receives raw scores
and the training loss falls below the double-sigmoid floor.

Modelled on: https://github.com/yudi-mars/daisyRec/pull/15
"""
import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"n_users": 20, "n_items": 30, "factors": 8, "layers": [16, 8], "lr": 0.02,
          "epochs": 40, "batch_size": 64, "neg_ratio": 1}


class NeuMF(nn.Module):
    def __init__(self, n_users, n_items, factors, layers):
        super().__init__()
        self.embed_user_gmf = nn.Embedding(n_users, factors)
        self.embed_item_gmf = nn.Embedding(n_items, factors)
        self.embed_user_mlp = nn.Embedding(n_users, layers[0] // 2)
        self.embed_item_mlp = nn.Embedding(n_items, layers[0] // 2)
        self.mlp = nn.Sequential(nn.Linear(layers[0], layers[1]), nn.ReLU())
        self.predict_layer = nn.Linear(factors + layers[1], 1)

    def forward(self, user, item):
        gmf = self.embed_user_gmf(user) * self.embed_item_gmf(item)
        mlp = self.mlp(torch.cat([self.embed_user_mlp(user), self.embed_item_mlp(item)], dim=-1))
        prediction = self.predict_layer(torch.cat([gmf, mlp], dim=-1)).view(-1)
        return prediction


def sample_interactions(cfg, n_pos=60):
    users = torch.randint(0, cfg["n_users"], (n_pos,))
    items = torch.randint(0, cfg["n_items"], (n_pos,))
    neg_items = torch.randint(0, cfg["n_items"], (n_pos * cfg["neg_ratio"],))
    u = torch.cat([users, users.repeat(cfg["neg_ratio"])])
    i = torch.cat([items, neg_items])
    y = torch.cat([torch.ones(n_pos), torch.zeros(n_pos * cfg["neg_ratio"])])
    return u, i, y


def fit(model, loader, optimizer, loss_function, epochs):
    for epoch in range(epochs):
        model.train()
        epoch_loss = 0.0
        for user, item, label in loader:
            prediction = model(user, item)
            loss = loss_function(prediction, label)  # fixed: GG111
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item() * len(label)
        epoch_loss /= len(loader.dataset)
        if epoch % 10 == 0:
            print(f"epoch {epoch:02d} loss {epoch_loss:.4f}")
    return epoch_loss


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    u, i, y = sample_interactions(CONFIG)
    loader = DataLoader(TensorDataset(u, i, y), batch_size=CONFIG["batch_size"], shuffle=True)
    model = NeuMF(CONFIG["n_users"], CONFIG["n_items"], CONFIG["factors"], CONFIG["layers"])
    optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    final = fit(model, loader, optimizer, nn.BCEWithLogitsLoss(), CONFIG["epochs"])
    pos_frac = y.mean().item()
    floor = pos_frac * -math.log(1 / (1 + math.exp(-1))) + (1 - pos_frac) * math.log(2)
    return final, floor


if __name__ == "__main__":
    final, floor = main()
    assert final < floor, (final, floor)
    print("FIXED: ok")
