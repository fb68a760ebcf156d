"""Prompt-learning trainer whose model returns its own loss, wrapped for multi-device use.

Modelled on: https://github.com/muzairkhattak/PromptSRC/issues/6

The PromptSRC trainer lets the CLIP wrapper compute the training loss inside
``forward`` and returns it.  When the model is wrapped in ``nn.DataParallel``
every replica returns a 0-dim loss and the gather step stacks them into a
vector with one entry per device.  The trainer then calls ``loss.backward()``
on that vector and autograd raises "grad can be implicitly created only for
scalar outputs".  Here the replica split/gather is emulated on CPU by a small
wrapper that behaves like DataParallel's scatter/gather for 0-dim outputs.
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
        # one prompt per class: mean context + class token
        return self.cls_embed + self.ctx.mean(dim=0, keepdim=True)


class CustomCLIP(nn.Module):
    def __init__(self, in_dim, dim, n_cls, n_ctx=4):
        super().__init__()
        self.image_encoder = nn.Sequential(nn.Linear(in_dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.prompt_learner = PromptLearner(n_ctx, dim, n_cls)
        self.logit_scale = nn.Parameter(torch.tensor(2.0))

    def forward(self, image, label=None):
        img = F.normalize(self.image_encoder(image), dim=-1)
        txt = F.normalize(self.prompt_learner(), dim=-1)
        logits = self.logit_scale.exp() * img @ txt.t()
        if self.training and label is not None:
            # loss computed inside the model, one value per replica
            return F.cross_entropy(logits, label)
        return logits


class ReplicaParallel(nn.Module):
    """CPU stand-in for nn.DataParallel: scatter along batch, gather outputs."""

    def __init__(self, module, n_replicas):
        super().__init__()
        self.module = module
        self.n_replicas = n_replicas

    def forward(self, image, label):
        outs = [self.module(i, l) for i, l in zip(image.chunk(self.n_replicas), label.chunk(self.n_replicas))]
        if outs[0].dim() == 0:
            # DataParallel's gather unsqueezes scalars and concatenates them
            return torch.stack(outs)
        return torch.cat(outs)


class PromptSRCTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        model = CustomCLIP(cfg.in_dim, cfg.dim, cfg.n_cls)
        for name, p in model.named_parameters():
            if "prompt_learner" not in name:
                p.requires_grad_(False)
        self.model = ReplicaParallel(model, cfg.n_devices) if cfg.n_devices > 1 else model
        params = [p for p in model.parameters() if p.requires_grad]
        self.optim = torch.optim.SGD(params, lr=cfg.lr)

    def model_backward_and_update(self, loss):
        self.optim.zero_grad()
        loss.backward()  # bug: GG501
        self.optim.step()

    def forward_backward(self, batch):
        image, label = batch
        self.model.train()
        loss = self.model(image, label)
        self.model_backward_and_update(loss)
        return {"loss": loss.detach().mean().item()}

    def train(self, loader):
        stats = []
        for batch in loader:
            stats.append(self.forward_backward(batch))
        return stats


def make_loader(cfg, n_batches=3):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(cfg.batch_size, cfg.in_dim, generator=g),
             torch.randint(0, cfg.n_cls, (cfg.batch_size,), generator=g)) for _ in range(n_batches)]


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--in-dim", type=int, default=16)
    p.add_argument("--dim", type=int, default=32)
    p.add_argument("--n-cls", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--n-devices", type=int, default=2)
    p.add_argument("--lr", type=float, default=0.01)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    cfg = parse_args([])
    trainer = PromptSRCTrainer(cfg)
    try:
        trainer.train(make_loader(cfg))
        print("no error")
    except RuntimeError as e:
        print(f"BUGGY: {e}")
