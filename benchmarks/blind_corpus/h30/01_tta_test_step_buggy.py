"""Test-time adaptation inside a Lightning-style test loop run under inference mode.

Modelled on: https://github.com/Lightning-AI/pytorch-lightning/issues/19910

The user's LightningModule needed gradients inside ``test_step`` (here: a
test-time-adaptation step that minimises prediction entropy on each test batch
and updates the BatchNorm affine parameters).  The trainer runs the whole test
loop under ``torch.inference_mode()``; wrapping the body of ``test_step`` in
``torch.enable_grad()`` does not help, because inference mode still wins, so the
entropy loss has no grad_fn and ``backward()`` fails with "element 0 of tensors
does not require grad and does not have a grad_fn".
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class MiniTrainer:
    """A tiny stand-in for a Lightning Trainer: fit() and test() loops."""

    def __init__(self, max_epochs=1, inference_mode=True):
        self.max_epochs = max_epochs
        self.inference_mode = inference_mode

    def fit(self, module, loader):
        opt = module.configure_optimizers()
        module.train()
        for _ in range(self.max_epochs):
            for idx, batch in enumerate(loader):
                opt.zero_grad()
                loss = module.training_step(batch, idx)
                loss.backward()
                opt.step()

    def test(self, module, loader):
        module.eval()
        results = []
        ctx = torch.inference_mode() if self.inference_mode else torch.no_grad()
        with ctx:
            for idx, batch in enumerate(loader):
                results.append(module.test_step(batch, idx))
        return results


class EntropyTTAClassifier(nn.Module):
    def __init__(self, in_dim=16, n_classes=4, tta_lr=1e-3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, 32), nn.BatchNorm1d(32), nn.ReLU())
        self.head = nn.Linear(32, n_classes)
        self.tta_lr = tta_lr

    def forward(self, x):
        return self.head(self.body(x))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

    def bn_params(self):
        return [p for m in self.modules() if isinstance(m, nn.BatchNorm1d)
                for p in (m.weight, m.bias)]

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self(x), y)

    def entropy_loss(self, logits):
        probs = logits.softmax(dim=1)
        return -(probs * logits.log_softmax(dim=1)).sum(dim=1).mean()

    def test_step(self, batch, batch_idx):
        x, y = batch
        tta_opt = torch.optim.SGD(self.bn_params(), lr=self.tta_lr)
        with torch.enable_grad():
            logits = self(x)
            loss = self.entropy_loss(logits)
            tta_opt.zero_grad()
            loss.backward()  # bug: GG101
            tta_opt.step()
        acc = (self(x).argmax(dim=1) == y).float().mean()
        return {"test_acc": acc.item(), "entropy": loss.item()}


def make_loader(n_batches=4, batch_size=8, in_dim=16, n_classes=4):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(batch_size, in_dim, generator=g),
             torch.randint(0, n_classes, (batch_size,), generator=g))
            for _ in range(n_batches)]


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    module = EntropyTTAClassifier()
    trainer = MiniTrainer(max_epochs=args.epochs)
    trainer.fit(module, make_loader())
    return trainer.test(module, make_loader())


if __name__ == "__main__":
    try:
        main([])
        print("no error raised")
    except RuntimeError as err:
        print(f"BUGGY: {err}")
