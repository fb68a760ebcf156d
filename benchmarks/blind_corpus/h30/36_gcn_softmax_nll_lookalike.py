"""Look-alike: pygcn training with log_softmax + nll_loss, softmax probabilities only for reporting.

Modelled on: https://github.com/tkipf/pygcn/issues/16 (counterpart)

The GCN returns logits; ``train()`` feeds ``F.log_softmax`` of them to
``F.nll_loss`` and separately computes ``F.softmax`` to report the mean
confidence of the prediction, which is what the reporter wanted.  The softmax
output never reaches the loss.  Correct code.
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        self.bias = nn.Parameter(torch.empty(out_features))
        stdv = 1.0 / math.sqrt(out_features)
        nn.init.uniform_(self.weight, -stdv, stdv)
        nn.init.uniform_(self.bias, -stdv, stdv)

    def forward(self, x, adj):
        return adj @ (x @ self.weight) + self.bias


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super().__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        return self.gc2(x, adj)


def load_data(n_nodes=40, n_feat=12, n_class=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    labels = torch.arange(n_nodes) % n_class
    features = F.one_hot(labels, n_class).float().repeat(1, n_feat // n_class)
    features = features + 0.5 * torch.randn(n_nodes, n_feat, generator=g)
    adj = (torch.rand(n_nodes, n_nodes, generator=g) < 0.1).float()
    adj = ((adj + adj.t() + torch.eye(n_nodes)) > 0).float()
    adj = adj / adj.sum(1, keepdim=True)
    idx = torch.randperm(n_nodes, generator=g)
    return adj, features, labels, idx[:20], idx[20:30], idx[30:]


def accuracy(output, labels):
    return (output.argmax(1) == labels).float().mean().item()


def train(model, optimizer, epoch, adj, features, labels, idx_train, idx_val):
    model.train()
    optimizer.zero_grad()
    logits = model(features, adj)
    probs = F.softmax(logits, dim=1)
    confidence = probs[idx_train].max(1).values.mean().item()
    loss_train = F.nll_loss(F.log_softmax(logits, dim=1)[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    model.eval()
    output = F.log_softmax(model(features, adj), dim=1)
    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    assert 0.0 < confidence <= 1.0
    return loss_train.item(), loss_val.item(), accuracy(output[idx_val], labels[idx_val])


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--weight_decay", type=float, default=5e-4)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--dropout", type=float, default=0.5)
    args = parser.parse_args(argv)
    torch.manual_seed(42)
    adj, features, labels, idx_train, idx_val, idx_test = load_data()
    model = GCN(features.shape[1], args.hidden, int(labels.max()) + 1, args.dropout)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    history = [train(model, optimizer, e, adj, features, labels, idx_train, idx_val)
               for e in range(args.epochs)]
    return history[-1][0]


if __name__ == "__main__":
    final_loss = main([])
    print(f"final training loss: {final_loss:.4f}")
    assert final_loss > 0
    print("OK")
