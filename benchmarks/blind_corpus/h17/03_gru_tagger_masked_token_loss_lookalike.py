"""GG501 look-alike - backward() on a per-token loss vector, but with an explicit gradient.

The tagger keeps an unreduced loss (one entry per token) so padded positions
can be masked out.  Instead of reducing first, it hands backward() the mask
weights as the `gradient` argument, which is exactly the vector-Jacobian product
of a masked mean.  The non-scalar backward is therefore well defined and the
resulting gradients equal those of the masked-mean loss (checked below).

Modelled on: none found (pattern from padded sequence-labelling code)
"""
import copy
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Config:
    vocab: int = 40
    n_tags: int = 5
    emb: int = 16
    hidden: int = 24
    seq_len: int = 12
    batch_size: int = 4
    lr: float = 0.1
    epochs: int = 2
    pad_id: int = 0


class GRUTagger(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg.vocab, cfg.emb, padding_idx=cfg.pad_id)
        self.rnn = nn.GRU(cfg.emb, cfg.hidden, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(2 * cfg.hidden, cfg.n_tags)

    def forward(self, tokens):
        h, _ = self.rnn(self.emb(tokens))
        return self.proj(h)


def make_loader(cfg):
    tokens = torch.randint(1, cfg.vocab, (16, cfg.seq_len))
    lengths = torch.randint(4, cfg.seq_len + 1, (16,))
    for i, n in enumerate(lengths):
        tokens[i, n:] = cfg.pad_id
    tags = torch.randint(0, cfg.n_tags, (16, cfg.seq_len))
    return DataLoader(TensorDataset(tokens, tags), batch_size=cfg.batch_size, shuffle=True)


def token_losses(model, tokens, tags, criterion):
    logits = model(tokens)
    per_token = criterion(logits.reshape(-1, logits.size(-1)), tags.reshape(-1))
    mask = (tokens.reshape(-1) != 0).float()
    return per_token, mask


def train_step(model, optimizer, criterion, tokens, tags):
    optimizer.zero_grad()
    per_token, mask = token_losses(model, tokens, tags, criterion)
    weights = mask / mask.sum()
    per_token.backward(gradient=weights)  # vector loss, explicit vector-Jacobian weights
    optimizer.step()
    return (per_token.detach() * weights).sum().item()


def check_equivalence(model, criterion, tokens, tags):
    ref = copy.deepcopy(model)
    per_token, mask = token_losses(model, tokens, tags, criterion)
    per_token.backward(gradient=mask / mask.sum())
    per_token_r, mask_r = token_losses(ref, tokens, tags, criterion)
    ((per_token_r * mask_r).sum() / mask_r.sum()).backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        assert torch.allclose(p.grad, q.grad, atol=1e-6)
    model.zero_grad()


def main():
    torch.manual_seed(0)
    cfg = Config()
    model = GRUTagger(cfg)
    criterion = nn.CrossEntropyLoss(reduction="none")
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    loader = make_loader(cfg)
    tokens, tags = next(iter(loader))
    check_equivalence(model, criterion, tokens, tags)
    for epoch in range(cfg.epochs):
        losses = [train_step(model, optimizer, criterion, x, y) for x, y in loader]
        print(f"epoch {epoch}: masked loss {sum(losses) / len(losses):.4f}")


if __name__ == "__main__":
    main()
    print("OK")
