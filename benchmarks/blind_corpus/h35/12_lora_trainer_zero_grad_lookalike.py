"""LoRA-style trainer with deliberate gradient accumulation.

Modelled on: https://github.com/tenstorrent/tt-blacksmith/pull/711 (counterpart)

Look-alike: backward() runs on several micro-batches without zero_grad()
in between, but this is intentional accumulation: the loss is divided by
the number of micro-batches and the optimizer clears gradients right after
every step.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Adapter(nn.Module):
    def __init__(self, dim=16, rank=4, vocab=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.down = nn.Linear(dim, rank, bias=False)
        self.up = nn.Linear(rank, dim, bias=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        h = self.embed(ids)
        return self.head(h + self.up(self.down(h)))


class AccumulatingTrainer:
    def __init__(self, model, lr=1e-2, accum_steps=2):
        self.model = model
        self.accum_steps = accum_steps
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)

    def loss_fn(self, ids):
        logits = self.model(ids[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1))

    def fit(self, batches):
        self.model.train()
        self.optimizer.zero_grad()
        for i, ids in enumerate(batches):
            loss = self.loss_fn(ids) / self.accum_steps
            loss.backward()
            if (i + 1) % self.accum_steps == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    data = [torch.randint(0, 32, (4, 6), generator=g) for _ in range(4)]
    trainer = AccumulatingTrainer(Adapter())
    trainer.fit(data)
    assert all(p.grad is None or p.grad.abs().sum() == 0 for p in trainer.model.parameters())
    print("OK")
