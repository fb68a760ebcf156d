"""GG607 (fixed) - validate() puts the model back into train() mode before returning.

The 3D U-Net trainer validates every `validate_after_iters` iterations.
In the buggy version validate() called self.model.eval() and nothing switched the model back, and
train() only calls self.model.train() at the start of an epoch.  After the
first validation the rest of the epoch trains with dropout disabled and
BatchNorm using (and no longer updating) its running statistics -- silently.
Observable: BatchNorm's num_batches_tracked stops at the first validation.

Modelled on: https://github.com/wolny/pytorch-3dunet/issues/53
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class DoubleConv(nn.Sequential):
    def __init__(self, in_ch, out_ch):
        super().__init__(nn.Conv3d(in_ch, out_ch, 3, padding=1), nn.BatchNorm3d(out_ch),
                         nn.ReLU(inplace=True), nn.Dropout3d(0.1),
                         nn.Conv3d(out_ch, out_ch, 3, padding=1), nn.ReLU(inplace=True))


class UNet3D(nn.Module):
    def __init__(self, in_channels=1, out_channels=1, f=4):
        super().__init__()
        self.enc1 = DoubleConv(in_channels, f)
        self.enc2 = DoubleConv(f, 2 * f)
        self.up = nn.ConvTranspose3d(2 * f, f, 2, stride=2)
        self.dec1 = DoubleConv(2 * f, f)
        self.final_conv = nn.Conv3d(f, out_channels, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool3d(e1, 2))
        d1 = self.dec1(torch.cat([self.up(e2), e1], dim=1))
        return self.final_conv(d1)


class DiceCoefficient:
    def __call__(self, logits, target, eps=1e-6):
        pred = (logits.sigmoid() > 0.5).float()
        inter = (pred * target).sum()
        return (2 * inter + eps) / (pred.sum() + target.sum() + eps)


class UNet3DTrainer:
    def __init__(self, model, optimizer, lr_scheduler, loss_criterion, eval_criterion, loaders,
                 checkpoint_dir, max_num_epochs=1, validate_after_iters=2, log_after_iters=1):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = lr_scheduler
        self.loss_criterion = loss_criterion
        self.eval_criterion = eval_criterion
        self.loaders = loaders
        self.checkpoint_dir = checkpoint_dir
        self.max_num_epochs = max_num_epochs
        self.validate_after_iters = validate_after_iters
        self.log_after_iters = log_after_iters
        self.num_iterations = 1
        self.num_epoch = 0
        self.best_eval_score = float("-inf")

    def fit(self):
        for _ in range(self.max_num_epochs):
            self.train(self.loaders["train"])
            self.scheduler.step()
            self.num_epoch += 1

    def train(self, train_loader):
        self.model.train()
        for t in train_loader:
            input, target = t
            output = self.model(input)
            loss = self.loss_criterion(output, target)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if self.num_iterations % self.validate_after_iters == 0:
                eval_score = self.validate(self.loaders["val"])
                if eval_score > self.best_eval_score:
                    self.best_eval_score = eval_score
                    self._save_checkpoint()
            if self.num_iterations % self.log_after_iters == 0:
                print(f"epoch {self.num_epoch} iter {self.num_iterations}: loss {loss.item():.4f}")
            self.num_iterations += 1

    def validate(self, val_loader):
        scores = []
        self.model.eval()
        with torch.no_grad():
            for input, target in val_loader:
                output = self.model(input)
                scores.append(self.eval_criterion(output, target).item())
        self.model.train()  # fixed: GG607
        return sum(scores) / len(scores)

    def _save_checkpoint(self):
        torch.save({"epoch": self.num_epoch, "model_state_dict": self.model.state_dict(),
                    "best_eval_score": self.best_eval_score},
                   os.path.join(self.checkpoint_dir, "best_checkpoint.pytorch"))


def main():
    torch.manual_seed(0)
    x = torch.randn(8, 1, 8, 8, 8)
    y = (x > 0.5).float()
    loaders = {"train": DataLoader(TensorDataset(x[:6], y[:6]), batch_size=1, shuffle=True),
               "val": DataLoader(TensorDataset(x[6:], y[6:]), batch_size=2)}
    model = UNet3D()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-5)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    with tempfile.TemporaryDirectory() as ckpt_dir:
        trainer = UNet3DTrainer(model, optimizer, scheduler, nn.BCEWithLogitsLoss(),
                                DiceCoefficient(), loaders, ckpt_dir, validate_after_iters=3)
        trainer.fit()
    tracked = model.enc1[1].num_batches_tracked.item()
    return tracked, len(loaders["train"])


if __name__ == "__main__":
    tracked, n_train = main()
    assert tracked == n_train
    print("FIXED: ok")
