"""GG609 - gradient clipping applied to gradients the AMP GradScaler still scales.

The runner's OptimizerCallback backpropagates through engine.backward_loss()
(scaler.scale(loss).backward()) and then calls grad_clip_fn on the model's
parameters before engine.optimizer_step() (scaler.step + scaler.update).
Nothing calls scaler.unscale_(optimizer) first, so the clip threshold is
compared with gradients multiplied by the loss scale (65536 initially); after
scaler.step() unscales them the update is ~65536x too small (silent).
Observable: the gradient actually applied has norm ~max_norm / scale.

Modelled on: https://github.com/catalyst-team/catalyst/issues/1319
"""
import functools

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class AMPEngine:
    def __init__(self, device="cpu"):
        self.device = device
        self.scaler = torch.amp.GradScaler(device)

    def autocast(self):
        return torch.autocast(self.device, dtype=torch.bfloat16)

    def backward_loss(self, loss, model, optimizer):
        self.scaler.scale(loss).backward()

    def optimizer_step(self, loss, model, optimizer):
        self.scaler.step(optimizer)
        self.scaler.update()

    def zero_grad(self, loss, model, optimizer):
        model.zero_grad(set_to_none=True)


class OptimizerCallback:
    def __init__(self, metric_key="loss", accumulation_steps=1, grad_clip_fn=None):
        self.metric_key = metric_key
        self.accumulation_steps = accumulation_steps
        self.grad_clip_fn = grad_clip_fn
        self._accumulation_counter = 0

    def on_batch_end(self, runner):
        if not runner.is_train_loader:
            return
        self._accumulation_counter += 1
        need_gradient_step = self._accumulation_counter % self.accumulation_steps == 0
        loss = runner.batch_metrics[self.metric_key]
        runner.engine.backward_loss(loss, runner.model, runner.optimizer)
        if self.grad_clip_fn is not None:
            self.grad_clip_fn(runner.model.parameters())  # bug: GG609
        if need_gradient_step:
            runner.engine.optimizer_step(loss, runner.model, runner.optimizer)
            runner.engine.zero_grad(loss, runner.model, runner.optimizer)


class SupervisedRunner:
    def __init__(self, model, criterion, optimizer, engine, callbacks):
        self.model, self.criterion, self.optimizer = model, criterion, optimizer
        self.engine = engine
        self.callbacks = callbacks
        self.is_train_loader = True
        self.batch_metrics = {}

    def handle_batch(self, batch):
        x, y = batch
        with self.engine.autocast():
            logits = self.model(x)
            loss = self.criterion(logits.float(), y)
        self.batch_metrics = {"loss": loss, "accuracy": (logits.argmax(1) == y).float().mean()}

    def run_epoch(self, loader, epoch):
        self.model.train()
        for batch in loader:
            self.handle_batch(batch)
            for cb in self.callbacks:
                cb.on_batch_end(self)
        print(f"epoch {epoch}: loss {self.batch_metrics['loss'].item():.4f}")


def make_model():
    return nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                         nn.Linear(64, 4))


def main():
    torch.manual_seed(0)
    lr, max_norm = 0.1, 1.0
    x, y = torch.randn(32, 20) * 5, torch.randint(0, 4, (32,))
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    clip = functools.partial(nn.utils.clip_grad_norm_, max_norm=max_norm)
    runner = SupervisedRunner(model, nn.CrossEntropyLoss(), optimizer, AMPEngine(),
                              [OptimizerCallback(grad_clip_fn=clip)])
    before = [p.detach().clone() for p in model.parameters()]
    runner.run_epoch(DataLoader(TensorDataset(x[:8], y[:8]), batch_size=8), epoch=0)
    applied = torch.sqrt(sum(((b - p) ** 2).sum() for b, p in zip(before, model.parameters()))) / lr
    runner.run_epoch(DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True), epoch=1)
    return applied.item(), max_norm


if __name__ == "__main__":
    applied, max_norm = main()
    if applied < 1e-3 * max_norm:
        print(f"BUGGY: applied gradient norm {applied:.2e} instead of about {max_norm}")
    else:
        raise SystemExit("NO BUG")
