"""Node features encoded once, before the epoch loop, then trained on every epoch.

Modelled on the report in dmlc/dgl#4285 (a graph transformer whose input embedding was
computed outside the training loop "to save time"): the first epoch's backward freed that
part of the graph, so `retain_graph=True` was added; then the optimizer step of the first
epoch changes the encoder's weights in place, and the second epoch's backward runs through
the same encoder nodes, which saved the old weights. Under torch 2.13.0 both functions
raise "one of the variables needed for gradient computation has been modified by an
inplace operation" on their second epoch.

* `encode_then_fit`: the encoding is a method of the model (`model.encode(...)`, a sum of
  two of its layers);
* `conv_features_then_fit`: the encoding is a plain call of a convolution trained by the
  same optimizer.
"""

import torch
from torch import nn

EPOCHS = 4


class NodeRegressor(nn.Module):
    def __init__(self, in_dim=6, pos_dim=3, hidden=12):
        super().__init__()
        self.feature_mlp = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.GELU(), nn.Linear(hidden, hidden)
        )
        self.position = nn.Linear(pos_dim, hidden)
        self.mix = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 1)

    def encode(self, feats, positions):
        return self.feature_mlp(feats) + self.position(positions)

    def forward(self, h, adjacency):
        h = torch.relu(self.mix(adjacency @ h))
        return self.out(h).squeeze(-1)


def encode_then_fit():
    nodes = 10
    adjacency = (torch.rand(nodes, nodes) < 0.4).float()
    feats, positions = torch.randn(nodes, 6), torch.randn(nodes, 3)
    target = torch.randn(nodes)
    model = NodeRegressor()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    h = model.encode(feats, positions)
    for epoch in range(EPOCHS):
        pred = model(h, adjacency)
        loss = nn.functional.mse_loss(pred, target)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()  # expect: GG205
        print(epoch, loss.item())


def conv_features_then_fit():
    signal = torch.randn(4, 2, 32)
    labels = torch.randint(0, 3, (4,))
    features = nn.Conv1d(2, 8, 5)
    head = nn.Linear(8, 3)
    optimizer = torch.optim.Adam(list(features.parameters()) + list(head.parameters()), lr=1e-3)
    pooled = features(signal).mean(-1)
    for step in range(3):
        loss = nn.functional.cross_entropy(head(pooled), labels)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()  # expect: GG205


if __name__ == "__main__":
    for run in (encode_then_fit, conv_features_then_fit):
        try:
            run()
        except RuntimeError as err:
            print(run.__name__, "raised:", str(err).splitlines()[0][:90])
