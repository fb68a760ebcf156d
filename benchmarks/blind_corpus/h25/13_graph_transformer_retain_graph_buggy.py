"""GG205 - optimizer.step() modifies weights that a retained graph still needs.

A small graph-transformer regressor.  The node input embedding (MLP input
encoder + Laplacian positional encoding) is computed once before the
epoch loop to "save time".  The first epoch's backward() freed that part of the
graph, so the user added `retain_graph=True` -- but optimizer.step() then
updates the embedding weights in place, and the next epoch back-propagates
into the retained graph that saved the old weights:
  RuntimeError: one of the variables needed for gradient computation has been
  modified by an inplace operation: [torch.FloatTensor [16, 16]], which is
  output 0 of AsStrided, is at version 2; expected version 1 instead. ...

Modelled on: https://github.com/dmlc/dgl/issues/4285
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

N_NODES, IN_DIM, POS_DIM, HIDDEN, HEADS, EPOCHS, LR = 12, 8, 4, 16, 2, 3, 1e-3


class GraphTransformerLayer(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.dk = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.ffn = nn.Sequential(nn.Linear(dim, 2 * dim), nn.ReLU(), nn.Linear(2 * dim, dim))

    def forward(self, h, adj):
        n = h.size(0)
        q, k, v = self.qkv(h).view(n, 3, self.heads, self.dk).unbind(1)
        scores = torch.einsum("ihd,jhd->hij", q, k) / math.sqrt(self.dk)
        scores = scores.masked_fill(adj.unsqueeze(0) == 0, float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        out = torch.einsum("hij,jhd->ihd", attn, v).reshape(n, -1)
        h = self.norm1(h + self.proj(out))
        return self.norm2(h + self.ffn(h))


class GraphTransformerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding_h = nn.Sequential(nn.Linear(IN_DIM, HIDDEN), nn.ReLU(),
                                         nn.Linear(HIDDEN, HIDDEN))
        self.embedding_lap_pos_enc = nn.Linear(POS_DIM, HIDDEN)
        self.layers = nn.ModuleList([GraphTransformerLayer(HIDDEN, HEADS) for _ in range(2)])
        self.readout = nn.Linear(HIDDEN, 1)

    def embed(self, feats, lap_pe):
        return self.embedding_h(feats) + self.embedding_lap_pos_enc(lap_pe)

    def forward(self, h, adj):
        for layer in self.layers:
            h = layer(h, adj)
        return self.readout(h).squeeze(-1)


def random_graph(n):
    adj = (torch.rand(n, n) < 0.3).float()
    adj = ((adj + adj.t() + torch.eye(n)) > 0).float()
    deg = adj.sum(1)
    lap = torch.eye(n) - adj / deg.sqrt().unsqueeze(0) / deg.sqrt().unsqueeze(1)
    _, eigvec = torch.linalg.eigh(lap)
    return adj, eigvec[:, 1:POS_DIM + 1]


def main():
    torch.manual_seed(0)
    adj, lap_pe = random_graph(N_NODES)
    feats = torch.randn(N_NODES, IN_DIM)
    node_label = torch.randn(N_NODES)

    model = GraphTransformerNet()
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)

    h = model.embed(feats, lap_pe)   # computed once, outside the loop
    for n in range(EPOCHS):
        out = model(h, adj)
        loss = criterion(out, node_label)
        print(f"epoch #{n}, loss: {loss.item():.4f}")
        optimizer.zero_grad()
        loss.backward(retain_graph=True)  # bug: GG205
        optimizer.step()


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        raise SystemExit(0)
    raise SystemExit("NO BUG")
