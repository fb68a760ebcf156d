"""GG402 look-alike: requires_grad=True on tensors built from integers.

Several learnable tensors here are created from integer sources: a temperature
built from the literal ``1``, per-sample weights made with ``ones_like`` of the
int64 label tensor, and a position ramp from ``torch.arange``.  Each one passes
an explicit floating dtype, so requiring grad is legal and they train.  The
integer tensors themselves (labels, indices) never get requires_grad.
Modelled on: none (counter-example to https://github.com/pytorch/pytorch/issues/95110)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

SETTINGS = {"seq_len": 6, "dim": 8, "classes": 3, "n": 24, "steps": 5, "lr": 0.05}


class PooledClassifier(nn.Module):
    def __init__(self, dim, classes, seq_len):
        super().__init__()
        self.proj = nn.Linear(dim, classes)
        self.temperature = torch.tensor(1, dtype=torch.float32, requires_grad=True)
        self.pos_ramp = torch.arange(seq_len, dtype=torch.float32).requires_grad_()

    def extra_params(self):
        return [self.temperature, self.pos_ramp]

    def forward(self, x):
        weights = F.softmax(self.pos_ramp, dim=0)
        pooled = (x * weights[None, :, None]).sum(1)
        return self.proj(pooled) / self.temperature


def weighted_ce(logits, labels, sample_w):
    per = F.cross_entropy(logits, labels, reduction="none")
    return (F.softplus(sample_w) * per).mean()


def fit(model, x, labels, cfg):
    sample_w = torch.ones_like(labels, dtype=torch.float32, requires_grad=True)
    idx = torch.randperm(labels.numel())
    params = list(model.parameters()) + model.extra_params() + [sample_w]
    opt = torch.optim.Adam(params, lr=cfg["lr"])
    t0 = model.temperature.item()
    for step in range(cfg["steps"]):
        batch = idx[step % 3::3]
        loss = weighted_ce(model(x[batch]), labels[batch], sample_w[batch]) + 0.01 * sample_w.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f} T={model.temperature.item():.3f}")
    assert model.temperature.item() != t0 and sample_w.grad is not None


def main():
    torch.manual_seed(0)
    c = SETTINGS
    x = torch.randn(c["n"], c["seq_len"], c["dim"])
    labels = torch.randint(0, c["classes"], (c["n"],))
    model = PooledClassifier(c["dim"], c["classes"], c["seq_len"])
    fit(model, x, labels, c)


if __name__ == "__main__":
    main()
    print("OK")
