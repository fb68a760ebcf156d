"""GG113 - fixed version: the model returns log_softmax for nll_loss.

MANSF.forward() ends in F.log_softmax, so F.nll_loss computes a real
cross-entropy (positive, decreasing). argmax accuracy is unaffected.

Modelled on: https://github.com/midas-research/man-sf-emnlp/issues/2
"""
import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n_stocks", type=int, default=6)
    p.add_argument("--days", type=int, default=5)
    p.add_argument("--tweet_dim", type=int, default=16)
    p.add_argument("--hidden", type=int, default=24)
    p.add_argument("--lr", type=float, default=5e-3)
    p.add_argument("--epochs", type=int, default=15)
    return p.parse_args(argv)


class MANSF(nn.Module):
    def __init__(self, n_stocks, tweet_dim, hidden):
        super().__init__()
        self.price_gru = nn.GRU(3, hidden, batch_first=True)
        self.text_gru = nn.GRU(tweet_dim, hidden, batch_first=True)
        self.bilinear = nn.Bilinear(hidden, hidden, hidden)
        self.adj_logits = nn.Parameter(torch.zeros(n_stocks, n_stocks))
        self.out = nn.Linear(hidden, 2)

    def forward(self, prices, tweets):
        _, hp = self.price_gru(prices)
        _, ht = self.text_gru(tweets)
        fused = torch.tanh(self.bilinear(hp[-1], ht[-1]))
        graph = torch.softmax(self.adj_logits, dim=1) @ fused
        return F.log_softmax(self.out(F.elu(graph + fused)), dim=1)


def train(model, optimizer, data, epochs):
    prices, tweets, labels = data
    history = []
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        output = model(prices, tweets)
        loss_train = F.nll_loss(output, labels)  # fixed: GG113
        loss_train.backward()
        optimizer.step()
        acc = (output.argmax(1) == labels).float().mean().item()
        history.append(loss_train.item())
        if epoch % 5 == 0:
            print(f"Epoch {epoch + 1:04d} loss_train {loss_train.item():.4f} acc_train {acc:.4f}")
    return history


def main(argv=None):
    torch.set_num_threads(1)
    args = parse_args(argv or [])
    torch.manual_seed(0)
    prices = torch.randn(args.n_stocks, args.days, 3)
    tweets = torch.randn(args.n_stocks, args.days, args.tweet_dim)
    labels = torch.randint(0, 2, (args.n_stocks,))
    model = MANSF(args.n_stocks, args.tweet_dim, args.hidden)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=5e-4)
    return train(model, optimizer, (prices, tweets, labels), args.epochs)


if __name__ == "__main__":
    history = main()
    assert all(v > 0 for v in history) and history[-1] < history[0]
    print("FIXED: ok")
