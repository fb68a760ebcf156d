"""GG610 look-alike - parameters() generators used several times, but each one only once.

A char-level LSTM trainer keeps `params = model.parameters()` in a variable and
passes it to the optimizer (its single use), then calls model.parameters()
again every time it needs the parameters: counting them, clipping,
and a grad-norm helper that takes the MODULE and calls .parameters() freshly for
each of its two loops.  No generator is ever iterated twice, so clipping really
clips.  A checker that flags a stored parameters() generator, or two loops over
"parameters" in one helper, would be wrong here.

Modelled on: https://github.com/pytorch/pytorch/issues/37350 (correct counterpart)
"""
import string

import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = ("the quick brown fox jumps over the lazy dog while the cat sleeps " * 6).strip()
VOCAB = sorted(set(string.ascii_lowercase + " "))
STOI = {c: i for i, c in enumerate(VOCAB)}
HP = {"emb": 16, "hidden": 64, "seq": 20, "batch": 8, "steps": 12, "lr": 0.5, "max_norm": 0.25}


class CharLSTM(nn.Module):
    def __init__(self, vocab, emb, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, x):
        out, _ = self.lstm(self.embed(x))
        return self.decoder(out)


def scale_grads_to(module, max_norm):
    total = torch.sqrt(sum(p.grad.pow(2).sum() for p in module.parameters() if p.grad is not None))
    coef = max_norm / (total + 1e-6)
    if coef < 1:
        for p in module.parameters():
            if p.grad is not None:
                p.grad.mul_(coef)
    return total.item()


def get_batch(data, seq, batch, gen):
    starts = torch.randint(0, len(data) - seq - 1, (batch,), generator=gen)
    x = torch.stack([data[s:s + seq] for s in starts])
    y = torch.stack([data[s + 1:s + seq + 1] for s in starts])
    return x, y


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    data = torch.tensor([STOI[c] for c in TEXT])
    model = CharLSTM(len(VOCAB), HP["emb"], HP["hidden"])

    params = model.parameters()
    optimizer = torch.optim.SGD(params, lr=HP["lr"])
    n_decay = sum(1 for n, _ in model.named_parameters() if n.endswith("weight"))
    print(f"{n_decay} weight matrices, {sum(p.numel() for p in model.parameters())} parameters")

    post_clip = []
    for step in range(HP["steps"]):
        x, y = get_batch(data, HP["seq"], HP["batch"], gen)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x).reshape(-1, len(VOCAB)), y.reshape(-1))
        loss.backward()
        before = scale_grads_to(model, HP["max_norm"])
        after = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters())).item()
        post_clip.append(after)
        optimizer.step()
        if step % 4 == 0:
            print(f"step {step}: loss {loss.item():.3f} grad-norm {before:.3f} -> {after:.3f}")
    return post_clip


if __name__ == "__main__":
    post_clip = main()
    assert max(post_clip) <= HP["max_norm"] * 1.001
    print("OK")
