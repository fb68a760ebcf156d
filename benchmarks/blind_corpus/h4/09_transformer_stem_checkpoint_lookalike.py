"""GG112 look-alike - reentrant checkpoint fed a tensor that does require grad.

The encoder layers are checkpointed with use_reentrant=True, but the first checkpointed
call receives the output of a trainable token embedding + positional parameter, so the
tensor input has requires_grad=True and every layer gets its gradient. The mask (a bool
tensor) is a non-differentiable extra input, which is fine.
"""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class TinyEncoder(nn.Module):
    def __init__(self, vocab=50, dim=16, depth=2, max_len=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(1, max_len, dim))
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(dim, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
            for _ in range(depth)
        )
        self.out = nn.Linear(dim, 2)

    def forward(self, ids, pad_mask):
        x = self.embed(ids) + self.pos[:, : ids.size(1)]
        for layer in self.layers:
            x = checkpoint(layer, x, None, pad_mask, use_reentrant=True)
        return self.out(x[:, 0])


def main():
    torch.manual_seed(0)
    model = TinyEncoder()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    ids = torch.randint(1, 50, (8, 10))
    pad_mask = torch.zeros(8, 10, dtype=torch.bool)
    pad_mask[:, 8:] = True
    labels = (ids[:, 0] > 25).long()
    first = None
    for step in range(20):
        loss = nn.functional.cross_entropy(model(ids, pad_mask), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    for name, p in model.layers.named_parameters():
        assert p.grad is not None, name
    assert loss.item() < first, (first, loss.item())


if __name__ == "__main__":
    main()
    print("OK")
