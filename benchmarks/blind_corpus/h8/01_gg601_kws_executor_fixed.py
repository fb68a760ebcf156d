"""GG601 (fixed) - the training loop clears gradients before each backward.

Originally `Executor.train` stepped the optimizer on every batch without ever
resetting the gradients, so step k used the sum of the gradients of batches 1..k.
Fix: call `optimizer.zero_grad()` at the top of every iteration, so each step
uses only its own batch's gradient.

Modelled on: https://github.com/wenet-e2e/wekws/issues/72
"""
import argparse
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(message)s")
logger = logging.getLogger("kws")


def get_args(argv=None):
    parser = argparse.ArgumentParser(description="train a tiny keyword spotter")
    parser.add_argument("--num_keywords", type=int, default=3)
    parser.add_argument("--feat_dim", type=int, default=20)
    parser.add_argument("--hidden_dim", type=int, default=32)
    parser.add_argument("--num_frames", type=int, default=30)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--num_utts", type=int, default=48)
    parser.add_argument("--max_epoch", type=int, default=1)
    parser.add_argument("--grad_clip", type=float, default=50.0)
    parser.add_argument("--log_interval", type=int, default=2)
    return parser.parse_args(argv)


class GRUKeywordSpotter(nn.Module):
    """Linear front-end -> 2-layer GRU -> per-frame keyword posteriors."""

    def __init__(self, feat_dim, hidden_dim, num_keywords):
        super().__init__()
        self.preprocess = nn.Linear(feat_dim, hidden_dim)
        self.backbone = nn.GRU(hidden_dim, hidden_dim, num_layers=2, batch_first=True)
        self.classifier = nn.Linear(hidden_dim, num_keywords)

    def forward(self, feats):
        x = F.relu(self.preprocess(feats))
        x, _ = self.backbone(x)
        return torch.sigmoid(self.classifier(x))  # (B, T, K)


def max_pooling_loss(probs, target):
    """BCE on the best-scoring frame of every utterance for every keyword."""
    utt_probs, _ = probs.max(dim=1)
    utt_probs = utt_probs.clamp(1e-6, 1 - 1e-6)
    return F.binary_cross_entropy(utt_probs, target)


class Executor:
    def __init__(self):
        self.step = 0

    def train(self, model, optimizer, data_loader, device, args):
        """Train one epoch."""
        model.train()
        clip = args.grad_clip
        log_interval = args.log_interval
        history = []
        for batch_idx, (feats, target) in enumerate(data_loader):  # fixed: GG601
            optimizer.zero_grad()
            feats = feats.to(device)
            target = target.to(device)
            probs = model(feats)
            loss = max_pooling_loss(probs, target)
            loss.backward()
            grad_norm = nn.utils.clip_grad_norm_(model.parameters(), clip)
            if torch.isfinite(grad_norm):
                optimizer.step()
            self.step += 1
            history.append(loss.item())
            if batch_idx % log_interval == 0:
                logger.info("TRAIN Batch %d loss %.6f grad_norm %.4f", batch_idx, loss.item(), grad_norm.item())
        return history


def build(args):
    device = torch.device("cpu")
    feats = torch.randn(args.num_utts, args.num_frames, args.feat_dim)
    target = (torch.rand(args.num_utts, args.num_keywords) > 0.6).float()
    loader = DataLoader(TensorDataset(feats, target), batch_size=args.batch_size, shuffle=True)
    model = GRUKeywordSpotter(args.feat_dim, args.hidden_dim, args.num_keywords).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    return model, optimizer, loader, device


def main(args, model, optimizer, loader, device):
    executor = Executor()
    for epoch in range(args.max_epoch):
        losses = executor.train(model, optimizer, loader, device, args)
        logger.info("Epoch %d mean loss %.4f", epoch, sum(losses) / len(losses))
    return executor


def check_training():
    torch.manual_seed(0)
    args = get_args([])
    model, optimizer, loader, device = build(args)
    probe = model.classifier.weight
    fresh, seen = [], []
    # gradient produced by each backward (before it is added into .grad)
    probe.register_hook(lambda g: fresh.append(g.detach().clone()))
    # gradient the optimizer actually uses at each step
    optimizer.register_step_pre_hook(lambda opt, a, kw: seen.append(probe.grad.detach().clone()))
    main(args, model, optimizer, loader, device)
    assert len(seen) >= 3, "expected several optimizer steps"
    drift = (seen[2] - fresh[2]).abs().max().item()
    assert drift < 1e-6, (
        f"optimizer step 3 used a gradient that is not batch 3's own gradient "
        f"(max diff {drift:.3e}); it equals the sum of batches 1..3: "
        f"{torch.allclose(seen[2], fresh[0] + fresh[1] + fresh[2], atol=1e-6)}"
    )


if __name__ == "__main__":
    check_training()
    print("FIXED: ok")
