"""GG113 look-alike - softmax in the head, but the log is taken before NLLLoss.

The attribute heads return probabilities (the serving code wants them), and
the training loop feeds torch.log(probs.clamp_min(eps)) to F.nll_loss, i.e.
proper log-probabilities.  Softmax probabilities are also used for the
confidence report, never given directly to the NLL loss.

Modelled on: https://github.com/sampathweb/apparel-styles/issues/8 (log applied)
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

ATTRIBUTES = {"collar": 3, "pattern": 4}
FEAT_DIM, EPOCHS, EPS = 32, 4, 1e-8


class AttributeHead(nn.Module):
    def __init__(self, num_labels):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(FEAT_DIM, 32), nn.ReLU(), nn.Linear(32, num_labels))

    def forward(self, feats):
        return F.softmax(self.fc(feats), dim=1)


def compute_loss(probs, labels):
    log_probs = torch.log(probs.clamp_min(EPS))
    return F.nll_loss(log_probs, labels)


def confidence_report(probs):
    conf, pred = probs.max(1)
    return {"mean_conf": conf.mean().item(), "n_pred_classes": pred.unique().numel()}


def export_heads(heads, path):
    """Save every attribute head in one checkpoint for the serving code."""
    torch.save({name: head.state_dict() for name, head in heads.items()}, path)


def main():
    torch.manual_seed(0)
    feats = torch.randn(40, FEAT_DIM)
    heads = {}
    for name, n in ATTRIBUTES.items():
        labels = torch.randint(0, n, (40,))
        head = AttributeHead(n)
        opt = torch.optim.Adam(head.parameters(), lr=1e-2)
        losses = []
        for epoch in range(EPOCHS):
            probs = head(feats)
            loss = compute_loss(probs, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        print(f"[{name}] losses {[round(v, 3) for v in losses]} report {confidence_report(probs.detach())}")
        assert all(v > 0 for v in losses) and losses[-1] < losses[0]
        heads[name] = head
    export_heads(heads, os.path.join(tempfile.mkdtemp(), "attribute_heads.pth"))


if __name__ == "__main__":
    main()
    print("OK")
