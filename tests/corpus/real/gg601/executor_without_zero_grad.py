"""A keyword-spotting toolkit whose `Executor.train` loops over the data loader, calls
`loss.backward()` and `optimizer.step()`, but never clears the gradients: every step
applies the sum of all gradients so far. The fix adds `optimizer.zero_grad()` before the
backward pass.

Sources (rewritten in our own words, structure kept):
* https://github.com/wenet-e2e/wekws/pull/73 - `kws/utils/executor.py`: `class Executor`
  with `train(self, model, optimizer, data_loader, device, writer, args)`, the loss from a
  helper function, gradient clipping before the step.
* https://github.com/yastrebksv/TennisCourtDetector/issues/7 - `base_trainer.py`: a train
  function given the model, loader, optimiser and criterion, no `zero_grad()`.
"""

import torch
from torch import nn


def max_pooling_loss(logits, target):
    return nn.functional.binary_cross_entropy_with_logits(logits.max(dim=1).values, target)


class Executor:
    def __init__(self) -> None:
        self.step = 0

    def train(self, model, optimizer, data_loader, device, writer, args):
        model.train()
        clip = args.get("grad_clip", 50.0)
        for batch_idx, (feats, target) in enumerate(data_loader):  # expect: GG601
            feats = feats.to(device)
            target = target.to(device)
            logits = model(feats)
            loss = max_pooling_loss(logits, target)
            loss.backward()
            grad_norm = nn.utils.clip_grad_norm_(model.parameters(), clip)
            if torch.isfinite(grad_norm):
                optimizer.step()
            self.step += 1

    def train_fixed(self, model, optimizer, data_loader, device, writer, args):
        model.train()
        clip = args.get("grad_clip", 50.0)
        for batch_idx, (feats, target) in enumerate(data_loader):
            feats = feats.to(device)
            target = target.to(device)
            logits = model(feats)
            loss = max_pooling_loss(logits, target)
            optimizer.zero_grad()
            loss.backward()
            grad_norm = nn.utils.clip_grad_norm_(model.parameters(), clip)
            if torch.isfinite(grad_norm):
                optimizer.step()
            self.step += 1


def train(model, train_loader, optimizer, criterion, device, epoch, max_iters=1000):
    """TennisCourtDetector: the base trainer's loop."""
    model.train()
    losses = []
    for iter_id, (inputs, heatmaps) in enumerate(train_loader):  # expect: GG601
        out = model(inputs.to(device))
        loss = criterion(torch.sigmoid(out), heatmaps.to(device))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if iter_id > max_iters:
            break
    return sum(losses) / len(losses)


def train_cleared(model, train_loader, optimizer, criterion, device, epoch, max_iters=1000):
    model.train()
    losses = []
    for iter_id, (inputs, heatmaps) in enumerate(train_loader):
        optimizer.zero_grad()
        out = model(inputs.to(device))
        loss = criterion(torch.sigmoid(out), heatmaps.to(device))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if iter_id > max_iters:
            break
    return sum(losses) / len(losses)


net = nn.Linear(4, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = [(torch.randn(2, 5, 4), torch.randint(0, 2, (2, 3)).float()) for _ in range(2)]
Executor().train(net, opt, data, "cpu", None, {})
Executor().train_fixed(net, opt, data, "cpu", None, {})
heat = [(torch.randn(2, 4), torch.rand(2, 3)) for _ in range(2)]
train(net, heat, opt, nn.MSELoss(), "cpu", 0)
train_cleared(net, heat, opt, nn.MSELoss(), "cpu", 0)
