"""GG403 look-alike - .grad read from tensors that really are leaves (or retain grad).

Gradient x input attribution for a small text classifier.  The embedded input
is computed by the model (a non-leaf), which looks like the classic "reading
.grad of an intermediate tensor" mistake -- but the code detaches it and calls
`requires_grad_()` (making a fresh leaf) before feeding the rest of the model,
and the hidden activation whose gradient is logged has `retain_grad()` called
on it before backward().  Both .grad reads return real tensors.

Modelled on: https://github.com/ZF4444/MMAL-Net/issues/8 (correct counterpart)
"""
import torch
import torch.nn as nn

CFG = {"vocab": 30, "dim": 8, "hidden": 16, "classes": 3, "seq": 6}


class BagClassifier(nn.Module):
    def __init__(self, vocab, dim, hidden, classes):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim)
        self.encoder = nn.Sequential(nn.Linear(dim, hidden), nn.Tanh())
        self.out = nn.Linear(hidden, classes)

    def embed(self, tokens):
        return self.embedding(tokens)

    def classify(self, embedded, keep=None):
        hidden = self.encoder(embedded).mean(dim=1)
        if keep is not None:
            hidden.retain_grad()
            keep["hidden"] = hidden
        return self.out(hidden)


def attribute(model, tokens, target):
    model.eval()
    embedded = model.embed(tokens).detach().requires_grad_()
    keep = {}
    logits = model.classify(embedded, keep)
    model.zero_grad()
    logits[:, target].sum().backward()
    token_scores = (embedded.grad * embedded).sum(-1)
    hidden_grad_norm = keep["hidden"].grad.norm().item()
    return token_scores, hidden_grad_norm


def main():
    torch.manual_seed(0)
    model = BagClassifier(CFG["vocab"], CFG["dim"], CFG["hidden"], CFG["classes"])
    tokens = torch.randint(0, CFG["vocab"], (2, CFG["seq"]))
    with torch.no_grad():
        target = model.classify(model.embed(tokens)).argmax(1)[0].item()
    scores, hnorm = attribute(model, tokens, target)
    for row in scores:
        print(" ".join(f"{s:+.3f}" for s in row.tolist()))
    print(f"target={target} |d logit / d hidden| = {hnorm:.4f}")
    assert scores.shape == tokens.shape


if __name__ == "__main__":
    main()
    print("OK")
