"""Lip-reading (VSR) recipe train loop that clips gradients the GradScaler still scales.

Modelled on: https://github.com/k2-fsa/icefall/pull/2081

The GRID VSR ``conformer_ctc2/train.py`` in this PR calls ``scaler.scale(loss).backward()``
and then ``torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)`` with the
``scaler.unscale_(optimizer)`` line commented out, before ``scaler.step(optimizer)``. The
norm that is measured and clipped is the norm of gradients multiplied by the loss scale
(65536 at start), so the clip threshold is meaningless: every step is clipped to
1/65536 of the intended size after scaler.step unscales it, and the logged grad_norm is
inflated by the same factor. The check compares the logged norm to the true one.
"""
import argparse
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class AttributeDict(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


def get_params():
    return AttributeDict({"batch_idx_train": 0, "log_interval": 1, "max_norm": 1.0,
                          "feature_dim": 12, "num_classes": 6, "last_grad_norm": None})


class VisualFrontendConformer(nn.Module):
    def __init__(self, feature_dim, num_classes, d_model=24):
        super().__init__()
        self.frontend = nn.Conv1d(feature_dim, d_model, 3, padding=1)
        layer = nn.TransformerEncoderLayer(d_model, 4, 48, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1)
        self.ctc_output = nn.Linear(d_model, num_classes)

    def forward(self, x):
        x = self.frontend(x.transpose(1, 2)).transpose(1, 2)
        return self.ctc_output(self.encoder(x)).log_softmax(-1)


def compute_loss(params, model, batch):
    feats, targets, feat_lens, target_lens = batch
    log_probs = model(feats).transpose(0, 1)
    return F.ctc_loss(log_probs.float(), targets, feat_lens, target_lens, zero_infinity=True)


class Eden:
    def __init__(self, optimizer, lr_batches=100):
        self.optimizer, self.lr_batches = optimizer, lr_batches
        self.base = [g["lr"] for g in optimizer.param_groups]

    def step_batch(self, batch):
        f = ((batch ** 2 + self.lr_batches ** 2) / self.lr_batches ** 2) ** -0.25
        for g, b in zip(self.optimizer.param_groups, self.base):
            g["lr"] = b * f


def train_one_epoch(params, model, optimizer, scheduler, scaler, train_dl, use_fp16=True):
    model.train()
    for batch_idx, batch in enumerate(train_dl):
        params.batch_idx_train += 1
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=use_fp16):
            loss = compute_loss(params, model, batch)
        scaler.scale(loss).backward()

        scaler.unscale_(optimizer)

        grad_norm = torch.nn.utils.clip_grad_norm_(
            model.parameters(),
            max_norm=params.max_norm,
        )
        params.last_grad_norm = grad_norm.item()

        scheduler.step_batch(params.batch_idx_train)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()


def make_batch(params, bs=3, t=10, u=4):
    g = torch.Generator().manual_seed(0)
    feats = torch.randn(bs, t, params.feature_dim, generator=g)
    targets = torch.randint(1, params.num_classes, (bs, u), generator=g)
    return feats, targets, torch.full((bs,), t), torch.full((bs,), u)


def true_grad_norm(params, model, batch):
    ref = copy.deepcopy(model)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        compute_loss(params, ref, batch).backward()
    return torch.norm(torch.stack([p.grad.norm() for p in ref.parameters() if p.grad is not None])).item()


if __name__ == "__main__":
    argparse.ArgumentParser().parse_args([])
    torch.manual_seed(0)
    params = get_params()
    model = VisualFrontendConformer(params.feature_dim, params.num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    scheduler = Eden(optimizer)
    scaler = torch.amp.GradScaler("cpu")
    batch = make_batch(params)
    expected = true_grad_norm(params, model, batch)
    train_one_epoch(params, model, optimizer, scheduler, scaler, [batch])
    ratio = params.last_grad_norm / expected
    assert abs(ratio - 1.0) < 0.05, ratio
    print("FIXED: ok")
