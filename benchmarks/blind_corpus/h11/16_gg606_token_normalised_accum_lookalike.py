"""GG606 look-alike - gradient accumulation whose normalisation happens elsewhere.

Correct code: the seq2seq-style Trainer accumulates over several micro-batches and
calls backward() on each micro-batch without an explicit `/ accum_steps`, but the
loss is a *sum* over tokens divided by the number of target tokens in the whole
accumulation window (computed up front), so the accumulated gradient equals the
big-batch gradient exactly (checked against a single big batch). Runs cleanly.
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {"vocab": 40, "emb": 24, "hidden": 32, "pad_id": 0, "accum_steps": 3, "micro_bs": 4, "lr": 1e-3, "updates": 2}


class GRUTagger(nn.Module):
    def __init__(self, vocab, emb, hidden):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=0)
        self.gru = nn.GRU(emb, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        h, _ = self.gru(self.emb(tokens))
        return self.out(h)


def make_micro_batch(gen, cfg):
    lens = torch.randint(3, 9, (cfg["micro_bs"],), generator=gen)
    src = torch.zeros(cfg["micro_bs"], 8, dtype=torch.long)
    for i, n in enumerate(lens):
        src[i, :n] = torch.randint(1, cfg["vocab"], (int(n),), generator=gen)
    tgt = src.roll(-1, dims=1)
    tgt[:, -1] = cfg["pad_id"]
    return src, tgt


class Trainer:
    def __init__(self, model, optimizer, cfg):
        self.model, self.optimizer, self.cfg = model, optimizer, cfg

    def compute_loss(self, src, tgt, n_tokens_window):
        logits = self.model(src)
        loss_sum = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt.reshape(-1),
                                   ignore_index=self.cfg["pad_id"], reduction="sum")
        return loss_sum / n_tokens_window

    def backward_window(self, window):
        n_tokens = sum(int((tgt != self.cfg["pad_id"]).sum()) for _, tgt in window)
        total = 0.0
        for src, tgt in window:
            loss = self.compute_loss(src, tgt, n_tokens)
            loss.backward()
            total += loss.item()
        return total

    def update(self, window):
        self.optimizer.zero_grad()
        loss = self.backward_window(window)
        nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        return loss


def main():
    torch.manual_seed(0)
    cfg = CONFIG
    gen = torch.Generator().manual_seed(5)
    model = GRUTagger(cfg["vocab"], cfg["emb"], cfg["hidden"])
    trainer = Trainer(model, torch.optim.Adam(model.parameters(), lr=cfg["lr"]), cfg)

    window = [make_micro_batch(gen, cfg) for _ in range(cfg["accum_steps"])]
    ref = copy.deepcopy(model)
    big_src = torch.cat([w[0] for w in window]); big_tgt = torch.cat([w[1] for w in window])
    F.cross_entropy(ref(big_src).reshape(-1, cfg["vocab"]), big_tgt.reshape(-1), ignore_index=cfg["pad_id"]).backward()
    trainer.backward_window(window)
    assert torch.allclose(model.out.weight.grad, ref.out.weight.grad, rtol=1e-4, atol=1e-7)

    for u in range(cfg["updates"]):
        window = [make_micro_batch(gen, cfg) for _ in range(cfg["accum_steps"])]
        print(f"update {u}: loss {trainer.update(window):.4f}")


if __name__ == "__main__":
    main()
    print("OK")
