"""GCN node classification whose evaluation helper is a @torch.no_grad() function.

Modelled on: https://github.com/dmlc/dgl/issues/745 (counterpart)

Looks like the leaking validation loop: model.eval() followed by a plain call
of the model, with the logits kept across epochs, and no `with
torch.no_grad():` block in sight.  Gradient recording is disabled by the
decorator on evaluate(), so the returned logits carry no graph.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


class DenseGCN(nn.Module):
    def __init__(self, in_feats, hidden, n_classes):
        super().__init__()
        self.lin1 = nn.Linear(in_feats, hidden)
        self.lin2 = nn.Linear(hidden, n_classes)

    def forward(self, adj, x):
        h = F.relu(adj @ self.lin1(x))
        return adj @ self.lin2(h)


def normalized_adjacency(n, p=0.08, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = (torch.rand(n, n, generator=g) < p).float()
    a = ((a + a.T) > 0).float() + torch.eye(n)
    d = a.sum(1).pow(-0.5)
    return d[:, None] * a * d[None, :]


@torch.no_grad()
def evaluate(model, adj, features, labels, mask):
    model.eval()
    logits = model(adj, features)[mask]
    acc = (logits.argmax(1) == labels[mask]).float().mean().item()
    return acc, logits


def run(n=50, feats=6, classes=3, epochs=3):
    adj = normalized_adjacency(n)
    features = torch.randn(n, feats)
    labels = torch.randint(0, classes, (n,))
    train_mask = torch.arange(n) % 2 == 0
    model = DenseGCN(feats, 16, classes)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    history = []
    for _ in range(epochs):
        model.train()
        loss = F.cross_entropy(model(adj, features)[train_mask], labels[train_mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(evaluate(model, adj, features, labels, ~train_mask))
    return history


if __name__ == "__main__":
    torch.manual_seed(0)
    hist = run()
    assert all(lg.grad_fn is None for _, lg in hist)
    print("OK")
