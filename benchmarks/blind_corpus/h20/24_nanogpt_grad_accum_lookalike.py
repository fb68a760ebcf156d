"""GG606 look-alike - undivided micro-batch losses, but the gradients are averaged afterwards.

Like the NVIDIA MaskRCNN trainer, this loop backpropagates each micro-batch loss
unscaled and then divides every parameter's .grad by the number of
accumulation steps before clipping and stepping. Dividing the gradient is
equivalent to dividing the loss, so the update uses the full-batch mean gradient.

Modelled on: https://github.com/karpathy/nanoGPT/pull/207
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = dict(batch_size=4, block_size=8, accum_steps=4, n_embd=32, vocab=50, lr=6e-4, iters=3)


class TinyLM(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.wte = nn.Embedding(c["vocab"], c["n_embd"])
        self.rnn = nn.GRU(c["n_embd"], c["n_embd"], batch_first=True)
        self.head = nn.Linear(c["n_embd"], c["vocab"])

    def forward(self, idx, targets):
        h, _ = self.rnn(self.wte(idx))
        logits = self.head(h)
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def average_accumulated_grads(model, n):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.div_(n)


def main():
    c = CFG
    torch.manual_seed(0)
    data = torch.randint(0, c["vocab"], (2000,))
    model = TinyLM(c)
    opt = torch.optim.AdamW(model.parameters(), lr=c["lr"])

    def batch():
        ix = torch.randint(len(data) - c["block_size"] - 1, (c["batch_size"],))
        return (torch.stack([data[i:i + c["block_size"]] for i in ix]),
                torch.stack([data[i + 1:i + 1 + c["block_size"]] for i in ix]))

    for it in range(c["iters"]):
        micro = [batch() for _ in range(c["accum_steps"])]
        X, Y = torch.cat([m[0] for m in micro]), torch.cat([m[1] for m in micro])
        ref = torch.autograd.grad(model(X, Y), model.head.weight)[0]
        opt.zero_grad(set_to_none=True)
        for x, y in micro:
            loss = model(x, y)
            loss.backward()
        average_accumulated_grads(model, c["accum_steps"])
        assert torch.allclose(model.head.weight.grad, ref, atol=1e-6)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"iter {it} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
    print("OK")
