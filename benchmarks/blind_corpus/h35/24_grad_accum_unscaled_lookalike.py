"""Gradient accumulation where the loss helper already normalises by the window.

Modelled on: https://github.com/huggingface/transformers/pull/35207 (counterpart)

Look-alike: the training step calls loss.backward() on every micro-batch
and the optimizer only steps every `accum` micro-batches, but the loss
helper sums token losses and divides by the number of target tokens in
the whole accumulation window, so the accumulated gradient equals the
big-batch mean gradient.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyLM(nn.Module):
    def __init__(self, vocab=40, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.out = nn.Linear(dim, vocab)

    def forward(self, ids):
        return self.out(torch.tanh(self.emb(ids)))


def window_normalised_loss(model, ids, tokens_in_window):
    logits = model(ids[:, :-1])
    total = F.cross_entropy(logits.reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1), reduction="sum")
    return total / tokens_in_window


def train(model, micro_batches, accum):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    opt.zero_grad()
    norms = []
    for start in range(0, len(micro_batches), accum):
        window = micro_batches[start:start + accum]
        n_tokens = sum(b[:, 1:].numel() for b in window)
        for ids in window:
            window_normalised_loss(model, ids, n_tokens).backward()
        norms.append(torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item())
        opt.step()
        opt.zero_grad()
    return norms


if __name__ == "__main__":
    torch.manual_seed(0)
    model = TinyLM()
    g = torch.Generator().manual_seed(0)
    micro = [torch.randint(0, 40, (2, 8), generator=g) for _ in range(4)]
    big = torch.cat(micro)
    model.zero_grad()
    window_normalised_loss(model, big, big[:, 1:].numel()).backward()
    ref = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
    model.zero_grad()
    norms = train(model, micro, accum=4)
    assert abs(norms[0] - ref) < 1e-4
    print("OK")
