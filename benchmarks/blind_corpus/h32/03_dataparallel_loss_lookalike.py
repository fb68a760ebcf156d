"""Look-alike: per-sample losses backpropagated with an explicit gradient vector.

Modelled on: https://github.com/muzairkhattak/PromptSRC/issues/6 (counterpart)

Like the PromptSRC trainer the model returns its own loss, but here it is a
per-sample vector (reduction='none').  The trainer calls ``backward`` on that
vector *with* an explicit ``gradient`` holding normalised per-sample weights
(importance re-weighting), which is a valid vector-Jacobian product: no scalar
is needed and the prompt parameters receive the weighted-mean gradient.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class PromptLearner(nn.Module):
    def __init__(self, n_ctx, dim, n_cls):
        super().__init__()
        self.ctx = nn.Parameter(torch.randn(n_ctx, dim) * 0.02)
        self.cls_embed = nn.Parameter(torch.randn(n_cls, dim) * 0.02)

    def forward(self):
        return self.cls_embed + self.ctx.mean(dim=0, keepdim=True)


class CustomCLIP(nn.Module):
    def __init__(self, in_dim, dim, n_cls):
        super().__init__()
        self.image_encoder = nn.Sequential(nn.Linear(in_dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.prompt_learner = PromptLearner(4, dim, n_cls)
        self.logit_scale = nn.Parameter(torch.tensor(2.0))

    def forward(self, image, label=None):
        img = F.normalize(self.image_encoder(image), dim=-1)
        txt = F.normalize(self.prompt_learner(), dim=-1)
        logits = self.logit_scale.exp() * img @ txt.t()
        if self.training and label is not None:
            return F.cross_entropy(logits, label, reduction="none")
        return logits


class WeightedPromptTrainer:
    def __init__(self, cfg):
        self.model = CustomCLIP(cfg.in_dim, cfg.dim, cfg.n_cls)
        for name, p in self.model.named_parameters():
            p.requires_grad_("prompt_learner" in name)
        self.optim = torch.optim.SGD([p for p in self.model.parameters() if p.requires_grad], lr=cfg.lr)
        self.temperature = cfg.temperature

    def sample_weights(self, losses):
        # harder samples weigh more; weights are constants (no graph)
        w = torch.softmax(losses.detach() / self.temperature, dim=0)
        return w

    def model_backward_and_update(self, losses):
        self.optim.zero_grad()
        losses.backward(gradient=self.sample_weights(losses))
        self.optim.step()

    def forward_backward(self, batch):
        image, label = batch
        self.model.train()
        losses = self.model(image, label)
        self.model_backward_and_update(losses)
        return losses.detach()


def make_loader(cfg, n_batches=3):
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(cfg.batch_size, cfg.in_dim, generator=g),
             torch.randint(0, cfg.n_cls, (cfg.batch_size,), generator=g)) for _ in range(n_batches)]


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--in-dim", type=int, default=16)
    p.add_argument("--dim", type=int, default=32)
    p.add_argument("--n-cls", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--lr", type=float, default=0.01)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    cfg = parse_args([])
    trainer = WeightedPromptTrainer(cfg)
    before = trainer.model.prompt_learner.ctx.detach().clone()
    for batch in make_loader(cfg):
        trainer.forward_backward(batch)
    assert not torch.equal(before, trainer.model.prompt_learner.ctx.detach())
    print("OK")
