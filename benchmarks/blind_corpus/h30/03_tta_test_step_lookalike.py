"""Look-alike: entropy is computed in a test loop under inference mode, but only reported.

Modelled on: https://github.com/Lightning-AI/pytorch-lightning/issues/19910 (counterpart)

Same Lightning-style trainer as the report: the test loop runs under
``torch.inference_mode()``.  Here ``test_step`` only measures the prediction
entropy and the accuracy; it never calls ``backward()``.  The only backward pass
is in ``training_step``'s loop, which runs with grad mode on.  Correct code.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class MiniTrainer:
    def __init__(self, max_epochs=1):
        self.max_epochs = max_epochs

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
        with torch.inference_mode():
            for idx, batch in enumerate(loader):
                results.append(module.test_step(batch, idx))
        return results


class EntropyReportingClassifier(nn.Module):
    def __init__(self, in_dim=16, n_classes=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, 32), nn.BatchNorm1d(32), nn.ReLU())
        self.head = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.head(self.body(x))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self(x), y)

    def entropy_loss(self, logits):
        probs = logits.softmax(dim=1)
        return -(probs * logits.log_softmax(dim=1)).sum(dim=1).mean()

    def test_step(self, batch, batch_idx):
        x, y = batch
        with torch.enable_grad():
            logits = self(x)
            loss = self.entropy_loss(logits)
        acc = (logits.argmax(dim=1) == y).float().mean()
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
    module = EntropyReportingClassifier()
    trainer = MiniTrainer(max_epochs=args.epochs)
    trainer.fit(module, make_loader())
    return trainer.test(module, make_loader())


if __name__ == "__main__":
    results = main([])
    assert len(results) == 4
    print("OK")
