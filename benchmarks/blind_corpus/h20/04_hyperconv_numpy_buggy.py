"""GG502 - numpy applied to layer outputs that still require grad, inside forward().

Mistake: the hypergraph convolution collects each propagation layer's item
embeddings in a list and sums them with np.sum(...). NumPy converts every tensor
with .numpy(), which autograd refuses for tensors that require grad.
torch raises: RuntimeError: Can't call numpy() on Tensor that requires grad.
Use tensor.detach().numpy() instead.

Modelled on: https://github.com/xiaxin1998/DHCN/issues/8
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {
    "n_items": 40,
    "emb_size": 16,
    "layers": 2,
    "n_sessions": 24,
    "session_len": 5,
    "lr": 1e-3,
    "l2": 1e-5,
    "epochs": 1,
}


def build_adjacency(n_items, n_sessions, session_len, seed=0):
    """Row-normalised item-item matrix from random sessions (hyperedges)."""
    rng = np.random.default_rng(seed)
    H = np.zeros((n_items, n_sessions), dtype=np.float32)
    for s in range(n_sessions):
        H[rng.choice(n_items, session_len, replace=False), s] = 1.0
    A = H @ H.T
    A = A / np.maximum(A.sum(1, keepdims=True), 1.0)
    return torch.from_numpy(A)


class HyperConv(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers

    def forward(self, adjacency, embedding):
        item_embeddings = embedding
        final = [item_embeddings]
        for _ in range(self.layers):
            item_embeddings = torch.sparse.mm(adjacency.to_sparse(), item_embeddings)
            final.append(item_embeddings)
        item_embeddings = np.sum(final, 0)  # bug: GG502
        return item_embeddings


class DHCN(nn.Module):
    def __init__(self, adjacency, n_items, emb_size, layers):
        super().__init__()
        self.register_buffer("adjacency", adjacency)
        self.embedding = nn.Embedding(n_items, emb_size)
        self.hyper_conv = HyperConv(layers)
        self.w_session = nn.Linear(emb_size, emb_size)

    def session_repr(self, item_emb, sessions):
        return torch.tanh(self.w_session(item_emb[sessions].mean(1)))

    def forward(self, sessions):
        item_emb = self.hyper_conv(self.adjacency, self.embedding.weight)
        sess = self.session_repr(item_emb, sessions)
        return sess @ item_emb.t()


def make_batch(n_items, n, length, seed):
    g = torch.Generator().manual_seed(seed)
    sessions = torch.randint(0, n_items, (n, length), generator=g)
    targets = torch.randint(0, n_items, (n,), generator=g)
    return sessions, targets


def train_test(model, optimizer, batches):
    model.train()
    total_loss = 0.0
    for sessions, targets in batches:
        optimizer.zero_grad()
        scores = model(sessions)
        loss = F.cross_entropy(scores, targets)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    return total_loss / len(batches)


def main():
    cfg = CONFIG
    torch.manual_seed(0)
    adj = build_adjacency(cfg["n_items"], cfg["n_sessions"], cfg["session_len"])
    model = DHCN(adj, cfg["n_items"], cfg["emb_size"], cfg["layers"])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"], weight_decay=cfg["l2"])
    batches = [make_batch(cfg["n_items"], 8, 4, seed=s) for s in range(3)]
    for epoch in range(cfg["epochs"]):
        loss = train_test(model, optimizer, batches)
        print(f"epoch {epoch} loss {loss:.4f}")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
