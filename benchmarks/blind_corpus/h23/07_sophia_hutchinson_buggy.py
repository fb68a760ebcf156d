"""GG503 - gradients from autograd.grad differentiated again without create_graph.

A language-model training script uses a Sophia-style optimizer that every few
steps refreshes a Hutchinson estimate of the Hessian diagonal: it computes the
gradients of the loss with ``torch.autograd.grad`` and then differentiates
those gradients once more against random Rademacher vectors.  The first call
is made without ``create_graph=True``, so the gradients it returns are plain
tensors with no history and the second differentiation fails with:
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/kozistr/pytorch_optimizer/issues/193
"""
import math
import sys
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    vocab: int = 50
    d_model: int = 32
    seq_len: int = 16
    batch: int = 4
    lr: float = 1e-3
    hessian_every: int = 2
    steps: int = 4


class TinyLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg.vocab, cfg.d_model)
        self.rnn = nn.GRU(cfg.d_model, cfg.d_model, batch_first=True)
        self.out = nn.Linear(cfg.d_model, cfg.vocab)

    def forward(self, idx):
        h, _ = self.rnn(self.emb(idx))
        return self.out(torch.tanh(h))


class SophiaLite(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, beta2=0.99, rho=0.04, eps=1e-12):
        super().__init__(params, dict(lr=lr, beta2=beta2, rho=rho, eps=eps))

    def _params(self):
        return [p for g in self.param_groups for p in g["params"] if p.requires_grad]

    def update_hessian(self, loss):
        params = self._params()
        grads = torch.autograd.grad(loss, params, retain_graph=True)  # bug: GG503
        zs = [torch.randint_like(p, 0, 2) * 2.0 - 1.0 for p in params]
        h_zs = torch.autograd.grad(grads, params, grad_outputs=zs, retain_graph=True)
        for p, z, hz in zip(params, zs, h_zs):
            st = self.state[p]
            est = (z * hz).abs()
            st["hess"] = est if "hess" not in st else st["hess"].mul(0.99).add(est, alpha=0.01)

    @torch.no_grad()
    def step(self):
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                m = st.setdefault("exp_avg", torch.zeros_like(p))
                m.mul_(0.96).add_(p.grad, alpha=0.04)
                h = st.get("hess", torch.ones_like(p))
                ratio = (m.abs() / (g["rho"] * h + g["eps"])).clamp(max=1.0)
                p.add_(m.sign() * ratio, alpha=-g["lr"])


def lm_loss(model, batch):
    logits = model(batch[:, :-1])
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), batch[:, 1:].reshape(-1))


def train(cfg):
    torch.manual_seed(0)
    model = TinyLM(cfg)
    opt = SophiaLite(model.parameters(), lr=cfg.lr)
    for step in range(cfg.steps):
        batch = torch.randint(0, cfg.vocab, (cfg.batch, cfg.seq_len + 1))
        loss = lm_loss(model, batch)
        if step % cfg.hessian_every == 0:
            opt.update_hessian(loss)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.3f} ppl {math.exp(loss.item()):.1f}")
    return model


def main():
    train(Config())


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
