"""GG110 look-alike - softmax next to cross_entropy, but never as its input.

An attention-pooling classifier: softmax normalises the attention weights inside
forward(), and the head returns raw logits. Training uses F.cross_entropy with
*soft targets* built by softmax(teacher_logits / T) mixed with one-hot labels
(cross_entropy accepts class probabilities as the target). The input is always
the logits, so this is correct.

Modelled on: none found (attention pooling + soft-target training)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"d": 16, "seq": 6, "n_cls": 3, "T": 3.0, "soft_w": 0.3, "lr": 3e-3, "steps": 40, "bs": 32}


class AttnPoolClassifier(nn.Module):
    def __init__(self, d, n_cls):
        super().__init__()
        self.key = nn.Linear(d, d)
        self.query = nn.Parameter(torch.randn(d) * 0.1)
        self.head = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, n_cls))

    def forward(self, x):
        scores = self.key(x) @ self.query / x.size(-1) ** 0.5
        attn = F.softmax(scores, dim=1)
        pooled = (attn.unsqueeze(-1) * x).sum(1)
        return self.head(pooled)


def soft_targets(labels, teacher_logits, n_cls, T, w):
    return (1 - w) * F.one_hot(labels, n_cls).float() + w * F.softmax(teacher_logits / T, dim=-1)


@torch.no_grad()
def predict_proba(model, x):
    model.eval()
    probs = F.softmax(model(x), dim=-1)
    model.train()
    return probs


def main():
    torch.manual_seed(0)
    c = CFG
    model = AttnPoolClassifier(c["d"], c["n_cls"])
    teacher = nn.Linear(c["d"], c["n_cls"]).requires_grad_(False)
    opt = torch.optim.AdamW(model.parameters(), lr=c["lr"])
    losses = []
    for step in range(c["steps"]):
        x = torch.randn(c["bs"], c["seq"], c["d"])
        y = x[:, 0, : c["n_cls"]].argmax(-1)
        target = soft_targets(y, teacher(x.mean(1)), c["n_cls"], c["T"], c["soft_w"])
        logits = model(x)
        loss = F.cross_entropy(logits, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    probs = predict_proba(model, torch.randn(4, c["seq"], c["d"]))
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}; row sums {probs.sum(-1).tolist()}")
    assert sum(losses[-5:]) < sum(losses[:5])


if __name__ == "__main__":
    main()
    print("OK")
