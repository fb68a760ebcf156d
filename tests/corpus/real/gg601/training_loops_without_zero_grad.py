"""Training loops that step an optimizer but never clear its gradients (GG601).

Sources (rewritten in our own words, structure kept):
* https://github.com/wenet-e2e/wekws/pull/73 (issue #72) - `Executor.train` in
  kws/utils/executor.py: backward, gradient clipping, `optimizer.step()` when the norm is
  finite, no `zero_grad()` anywhere.
* https://github.com/yastrebksv/TennisCourtDetector/issues/7 - `train()` in base_trainer.py takes
  the model, loader, optimizer and criterion and never zeroes the gradients.
* https://github.com/Hsintien-Ng/idinvert_pytorch-reproduced/issues/1 - the encoder and the
  discriminator are trained in one loop; only the encoder's optimizer is cleared.
* https://github.com/tenstorrent/tt-blacksmith/pull/711 - a LoRA `Trainer` class whose step
  method steps the optimizer without clearing it.
"""

import torch
from torch import nn


# Source: wekws#72/#73, Executor.train.
class Executor:
    def __init__(self):
        self.step = 0

    def train(self, model, optimizer, data_loader, device, args):
        clip = args.get("grad_clip", 50.0)
        log_interval = args.get("log_interval", 10)
        model.train()
        for batch_idx, batch in enumerate(data_loader):  # expect: GG601
            feats, target = batch
            feats = feats.to(device)
            target = target.to(device)
            logits = model(feats)
            loss = nn.functional.cross_entropy(logits, target)
            loss.backward()
            grad_norm = nn.utils.clip_grad_norm_(model.parameters(), clip)
            if torch.isfinite(grad_norm):
                optimizer.step()
            if batch_idx % log_interval == 0:
                print(batch_idx, loss.item())
            self.step += 1


# Source: TennisCourtDetector#7, base_trainer.train.
def train(model, train_loader, optimizer, criterion, device, epoch, max_iters=1000):
    model.train()
    losses = []
    for iter_id, batch in enumerate(train_loader):  # expect: GG601
        out = model(batch[0].float().to(device))
        gt_hm_hp = batch[1].float().to(device)
        loss = criterion(torch.sigmoid(out), gt_hm_hp)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if iter_id > max_iters - 1:
            break
    return sum(losses) / max(len(losses), 1)


# The same loop with the model and optimizer built in the file.
def train_court_detector(train_loader, epochs):
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 15, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-5)
    criterion = nn.MSELoss()
    for _ in range(epochs):
        for images, heatmaps in train_loader:  # expect: GG601
            out = model(images)
            loss = criterion(torch.sigmoid(out), heatmaps)
            loss.backward()
            optimizer.step()
    return model


# Source: idinvert_pytorch-reproduced#1, training_loop_encoder.py.
def train_encoder(encoder, generator, discriminator, loader, steps):
    optimizer_E = torch.optim.Adam(encoder.parameters(), lr=1e-4)
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=1e-4)
    for step, x in zip(range(steps), loader):  # expect: GG601
        # discriminator update
        w = encoder(x)
        x_rec = generator(w)
        x_real_logit = discriminator(x)
        x_fake_logit = discriminator(x_rec.detach())
        loss_d = nn.functional.softplus(x_fake_logit).mean() + nn.functional.softplus(-x_real_logit).mean()
        loss_d.backward()
        optimizer_D.step()
        # encoder update
        optimizer_E.zero_grad()
        w = encoder(x)
        x_rec = generator(w)
        loss_e = (x_rec - x).pow(2).mean() + nn.functional.softplus(-discriminator(x_rec)).mean()
        loss_e.backward()
        optimizer_E.step()


# Source: tt-blacksmith#711, a trainer whose step method owns the optimizer.
class LoraTrainer:
    def __init__(self, model, lr):
        self.model = model
        self.optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)

    def training_step(self, batch):
        inputs, labels = batch
        logits = self.model(inputs)
        loss = nn.functional.cross_entropy(logits, labels)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, loader, epochs):
        for _ in range(epochs):
            for batch in loader:  # expect: GG601
                self.training_step(batch)
