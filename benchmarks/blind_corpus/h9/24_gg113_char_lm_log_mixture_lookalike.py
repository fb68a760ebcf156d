"""GG113 look-alike - softmax and nll_loss in the same model, used correctly.

Character LSTM language model with a small "copy" mixture: the final
distribution is a convex mix of two softmax distributions (vocabulary softmax and
a copy distribution over the previous characters). Because the mix is already a
probability, the code takes torch.log(mix + eps) before F.nll_loss, which is the
correct input (log-probabilities). Sampling uses softmax(logits / temperature).

Modelled on: https://github.com/clvrai/ACGAN-PyTorch/pull/4 (NLLLoss needs log-probabilities)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"vocab": 20, "emb": 16, "hidden": 32, "seq": 12, "batch": 8, "lr": 5e-3, "steps": 30, "temp": 0.8}
EPS = 1e-8


class CopyCharLM(nn.Module):
    def __init__(self, vocab, emb, hidden):
        super().__init__()
        self.vocab = vocab
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)
        self.gate = nn.Linear(hidden, 1)

    def forward(self, x):
        h, _ = self.lstm(self.emb(x))
        p_vocab = F.softmax(self.out(h), dim=-1)
        p_copy = F.one_hot(x, self.vocab).float()
        g = torch.sigmoid(self.gate(h))
        return g * p_vocab + (1 - g) * p_copy, self.out(h)


def lm_loss(model, x, y):
    mix, _ = model(x)
    log_probs = torch.log(mix + EPS)
    return F.nll_loss(log_probs.reshape(-1, model.vocab), y.reshape(-1))


@torch.no_grad()
def sample(model, start, n, temp):
    seq = [start]
    for _ in range(n):
        _, logits = model(torch.tensor([seq]))
        probs = F.softmax(logits[0, -1] / temp, dim=-1)
        seq.append(int(torch.multinomial(probs, 1)))
    return seq


def main():
    torch.manual_seed(0)
    model = CopyCharLM(CFG["vocab"], CFG["emb"], CFG["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    losses = []
    for step in range(CFG["steps"]):
        base = torch.randint(0, CFG["vocab"], (CFG["batch"], 1))
        text = (base + torch.arange(CFG["seq"] + 1)) % CFG["vocab"]
        loss = lm_loss(model, text[:, :-1], text[:, 1:])
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    assert min(losses) > 0 and losses[-1] < losses[0]
    print(f"nll {losses[0]:.3f} -> {losses[-1]:.3f}; sample {sample(model, 3, 6, CFG['temp'])}")


if __name__ == "__main__":
    main()
    print("OK")
