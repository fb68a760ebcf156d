"""Loops that do clear gradients: before backward, after step, through the model, or every k steps.

Sources (rewritten in our own words, structure kept):
* https://github.com/wenet-e2e/wekws/pull/73 - the merged fix: `optimizer.zero_grad()` above
  `loss.backward()` (as the reviewer asked).
* https://github.com/yastrebksv/TennisCourtDetector/issues/7 - the fixed `train()`.
* https://github.com/SharifiZarchi/Introduction_to_Machine_Learning/issues/55 - `zero_grad()`
  after `step()`: reported as a bug, but each backward still starts from cleared gradients.
* https://github.com/marrrcin/pytorch-resnet-mnist/issues/2 - `model.zero_grad()` instead of
  `optimizer.zero_grad()`: the optimizer holds exactly the model's parameters.
* https://github.com/Hsintien-Ng/idinvert_pytorch-reproduced/issues/1 - the fix: both optimizers
  cleared.
* https://github.com/ultralytics/ultralytics/pull/11217 - gradient accumulation: step and clear
  every `accumulate` batches.
"""

import torch
from torch import nn


def train(model, train_loader, optimizer, criterion, device, max_iters=1000):
    model.train()
    losses = []
    for iter_id, batch in enumerate(train_loader):
        out = model(batch[0].float().to(device))
        gt_hm_hp = batch[1].float().to(device)
        loss = criterion(torch.sigmoid(out), gt_hm_hp)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if iter_id > max_iters - 1:
            break
    return sum(losses) / max(len(losses), 1)


def train_zero_after_step(train_loader, epochs):
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()
    for _ in range(epochs):
        for x, y in train_loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
    return model


def train_model_zero_grad(train_loader, epochs):
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(epochs):
        for x, y in train_loader:
            model.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
    return model


def train_encoder(encoder, generator, discriminator, loader, steps):
    optimizer_E = torch.optim.Adam(encoder.parameters(), lr=1e-4)
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=1e-4)
    for step, x in zip(range(steps), loader):
        optimizer_D.zero_grad()
        x_rec = generator(encoder(x))
        loss_d = nn.functional.softplus(discriminator(x_rec.detach())).mean() + nn.functional.softplus(-discriminator(x)).mean()
        loss_d.backward()
        optimizer_D.step()
        optimizer_E.zero_grad()
        x_rec = generator(encoder(x))
        loss_e = (x_rec - x).pow(2).mean() + nn.functional.softplus(-discriminator(x_rec)).mean()
        loss_e.backward()
        optimizer_E.step()


def train_accumulated(train_loader, accumulate):
    model = nn.Linear(8, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    optimizer.zero_grad()
    for i, (x, y) in enumerate(train_loader):
        loss = nn.functional.cross_entropy(model(x), y) / accumulate
        loss.backward()
        if (i + 1) % accumulate == 0:
            optimizer.step()
            optimizer.zero_grad()
    return model


def train_set_to_none(train_loader):
    model = nn.Linear(8, 2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in train_loader:
        optimizer.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    return model
