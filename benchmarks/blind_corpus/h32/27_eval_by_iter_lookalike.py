"""Look-alike: epoch-interval evaluation; the runner re-enters train mode each epoch.

Modelled on: https://github.com/open-mmlab/mmaction2/issues/1781 (counterpart)

Same runner, hook and ``single_gpu_test`` (which calls ``model.eval()`` and
does not restore the mode), but evaluation is configured ``by_epoch=True``:
it runs in ``after_train_epoch``, after the last training iteration of the
epoch, and ``EpochBasedRunner.train`` calls ``model.train()`` before the next
epoch's first iteration.  No training step ever runs in eval mode.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Recognizer(nn.Module):
    def __init__(self, in_dim, n_cls):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 32), nn.BatchNorm1d(32), nn.ReLU())
        self.dropout = nn.Dropout(0.5)
        self.cls_head = nn.Linear(32, n_cls)
        self.mode_log = []

    def forward(self, x, label=None, return_loss=True):
        feat = self.dropout(self.backbone(x))
        logits = self.cls_head(feat)
        if return_loss:
            self.mode_log.append(self.training)
            return {"loss_cls": F.cross_entropy(logits, label)}
        return logits


def single_gpu_test(model, data_loader):
    model.eval()
    results = []
    with torch.no_grad():
        for x, _ in data_loader:
            results.append(model(x, return_loss=False).argmax(1))
    return torch.cat(results)


class EvalHook:
    def __init__(self, dataloader, interval, by_epoch=True):
        self.dataloader = dataloader
        self.interval = interval
        self.by_epoch = by_epoch
        self.history = []

    def after_train_iter(self, runner):
        if not self.by_epoch and (runner.iter + 1) % self.interval == 0:
            self.evaluate(runner)

    def after_train_epoch(self, runner):
        if self.by_epoch and (runner.epoch + 1) % self.interval == 0:
            self.evaluate(runner)

    def evaluate(self, runner):
        preds = single_gpu_test(runner.model, self.dataloader)
        labels = torch.cat([y for _, y in self.dataloader])
        self.history.append((preds == labels).float().mean().item())


class EpochBasedRunner:
    def __init__(self, model, optimizer, hooks, max_epochs):
        self.model, self.optimizer, self.hooks = model, optimizer, hooks
        self.max_epochs = max_epochs
        self.epoch = self.iter = 0

    def call_hook(self, name):
        for h in self.hooks:
            getattr(h, name)(self)

    def train(self, data_loader):
        self.model.train()
        for x, y in data_loader:
            losses = self.model(x, y)
            self.optimizer.zero_grad()
            losses["loss_cls"].backward()
            self.optimizer.step()
            self.call_hook("after_train_iter")
            self.iter += 1
        self.call_hook("after_train_epoch")
        self.epoch += 1

    def run(self, data_loader):
        while self.epoch < self.max_epochs:
            self.train(data_loader)


def make_loader(n, bs, in_dim, n_cls, seed):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(bs, in_dim, generator=g), torch.randint(0, n_cls, (bs,), generator=g)) for _ in range(n)]


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--in-dim", type=int, default=12)
    p.add_argument("--n-cls", type=int, default=4)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--eval-interval", type=int, default=3)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    model = Recognizer(args.in_dim, args.n_cls)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    evaluation = dict(by_epoch=True, interval=1)
    hook = EvalHook(make_loader(2, 8, args.in_dim, args.n_cls, 1), **evaluation)
    runner = EpochBasedRunner(model, optimizer, [hook], args.epochs)
    runner.run(make_loader(8, 8, args.in_dim, args.n_cls, 0))
    n_eval_mode = sum(not m for m in model.mode_log)
    assert n_eval_mode == 0 and len(hook.history) == args.epochs
    print("OK")
