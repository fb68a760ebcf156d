"""Self-attention classifier with an auxiliary per-position loss.

Modelled on: https://github.com/jostmey/NakedAttention/issues/1 (counterpart)

Look-alike: a loss tensor is accumulated with ``+=`` inside the loop, like the
epoch average in the report, but here the accumulation is over the positions
of ONE batch and the sum is what gets backpropagated in that same iteration,
so keeping the graph is intended. The epoch statistics use ``.item()``.
"""
import torch
import torch.nn as nn


class NakedAttention(nn.Module):
    def __init__(self, num_features, num_hidden, num_classes):
        super().__init__()
        self.query = nn.Linear(num_features, num_hidden)
        self.key = nn.Linear(num_features, num_hidden)
        self.value = nn.Linear(num_features, num_hidden)
        self.output = nn.Linear(num_hidden, num_classes)

    def forward(self, x):
        q, k, v = self.query(x), self.key(x), self.value(x)
        w = torch.softmax(q @ k.transpose(1, 2) / q.size(-1) ** 0.5, dim=-1)
        return self.output(w @ v)          # per-position logits


def make_loader(n, seq, feat, bs, gen):
    x = torch.randn(n, seq, feat, generator=gen)
    y = (x[:, :, 0].cumsum(1) > 0).long()
    return [(x[i:i + bs], y[i:i + bs]) for i in range(0, n, bs)]


def run_epoch(model, loss_fn, optimizer, loader_train):
    e_train = 0.0
    for xs_batch, ys_batch in loader_train:
        ls_batch = model(xs_batch)
        e_batch = 0.0
        for pos in range(ls_batch.size(1)):
            e_batch += loss_fn(ls_batch[:, pos], ys_batch[:, pos]) / ls_batch.size(1)
        optimizer.zero_grad()
        e_batch.backward()
        optimizer.step()
        e_train += e_batch.item() / len(loader_train)
    return e_train


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    loader = make_loader(128, 8, 4, 16, gen)
    model = NakedAttention(4, 16, 2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(2):
        e = run_epoch(model, nn.CrossEntropyLoss(), opt, loader)
    assert isinstance(e, float)
    print("OK")
