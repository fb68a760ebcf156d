"""GG606 look-alike - gradient accumulation normalised by token count, not by steps.

A small GRU language model accumulates gradients over several micro-batches.
It never divides by accum_steps; instead each micro-batch uses a *summed*
token loss divided by the number of non-pad tokens in the whole accumulation
window (counted up front).  The accumulated gradient therefore equals the
gradient of the large-batch per-token mean loss, which is correct.  Runs
cleanly.

Modelled on: none found (correct counterpart of the un-normalised accumulation bug)
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"vocab": 30, "emb": 16, "hidden": 32, "seq": 10, "micro": 4, "accum": 3, "lr": 3e-3, "pad": 0}


class GRULM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg["vocab"], cfg["emb"], padding_idx=cfg["pad"])
        self.rnn = nn.GRU(cfg["emb"], cfg["hidden"], batch_first=True)
        self.out = nn.Linear(cfg["hidden"], cfg["vocab"])

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h)


def token_loss_sum(model, batch, pad):
    inp, tgt = batch[:, :-1], batch[:, 1:]
    logits = model(inp)
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt.reshape(-1), ignore_index=pad, reduction="sum")


def make_batches(cfg, n_micro):
    batches = []
    for _ in range(n_micro):
        b = torch.randint(1, cfg["vocab"], (cfg["micro"], cfg["seq"]))
        lengths = torch.randint(4, cfg["seq"] + 1, (cfg["micro"],))
        for i, L in enumerate(lengths):
            b[i, L:] = cfg["pad"]
        batches.append(b)
    return batches


def train_window(model, optimizer, window, cfg):
    n_tokens = sum(int((b[:, 1:] != cfg["pad"]).sum()) for b in window)
    optimizer.zero_grad()
    for micro_batch in window:
        loss = token_loss_sum(model, micro_batch, cfg["pad"]) / n_tokens
        loss.backward()
    grads = [p.grad.clone() for p in model.parameters()]
    optimizer.step()
    return grads


def main():
    torch.manual_seed(0)
    model = GRULM(CFG)
    optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    window = make_batches(CFG, CFG["accum"])

    ref = copy.deepcopy(model)
    big = torch.cat(window)
    n_tokens = int((big[:, 1:] != CFG["pad"]).sum())
    (token_loss_sum(ref, big, CFG["pad"]) / n_tokens).backward()

    grads = train_window(model, optimizer, window, CFG)
    for g, p in zip(grads, ref.parameters()):
        assert torch.allclose(g, p.grad, atol=1e-5)
    for step in range(2):
        train_window(model, optimizer, make_batches(CFG, CFG["accum"]), CFG)
    print("accumulated gradient matches large-batch gradient")


if __name__ == "__main__":
    main()
    print("OK")
