"""GG108 look-alike - argmax and comparisons in a loss that still has a gradient path.

Correct code. A VQ-style / Gumbel straight-through classifier takes `argmax` to build a
hard one-hot code, but returns `hard - soft.detach() + soft`, so the gradient flows
through `soft`. Accuracy is computed with argmax and `==` for logging only, and a
hinge-style penalty uses a comparison mask multiplied by a differentiable margin.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class STClassifier(nn.Module):
    def __init__(self, in_dim=10, n_codes=6, n_classes=3, tau=1.0):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, n_codes))
        self.decoder = nn.Linear(n_codes, n_classes)
        self.tau = tau

    def quantize(self, logits):
        soft = F.softmax(logits / self.tau, dim=-1)
        index = soft.argmax(dim=-1)
        hard = F.one_hot(index, soft.size(-1)).to(soft.dtype)
        return hard - soft.detach() + soft

    def forward(self, x):
        return self.decoder(self.quantize(self.encoder(x)))


def compute_loss(logits, targets, margin=0.2):
    ce = F.cross_entropy(logits, targets)
    true_score = logits.gather(1, targets[:, None]).squeeze(1)
    runner_up = logits.masked_fill(F.one_hot(targets, logits.size(1)).bool(), -1e9).amax(1)
    gap = margin - (true_score - runner_up)
    violated = (gap > 0).float()
    return ce + (gap * violated).mean()


def accuracy(logits, targets):
    return (logits.argmax(-1) == targets).float().mean().item()


def main():
    torch.manual_seed(0)
    model = STClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, y = torch.randn(32, 10), torch.randint(0, 3, (32,))
    enc_before = model.encoder[0].weight.detach().clone()
    for step in range(4):
        logits = model(x)
        loss = compute_loss(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss={loss.item():.4f} acc={accuracy(logits, y):.3f}")
    assert not torch.equal(enc_before, model.encoder[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
