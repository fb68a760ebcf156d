"""GG607 (fixed) - training resumes in train mode after each mid-epoch validation.

Originally `validate()` switched the model to eval mode in the middle of the
epoch and nothing switched it back, so BatchNorm and Dropout behaved as at
inference for the rest of the epoch.  Fix: call `self.model.train()` right after
the validation / checkpoint block inside the loop.

Modelled on: https://github.com/fartashf/vsepp/issues/4
"""
import os
import tempfile
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

opt = SimpleNamespace(num_epochs=2, batch_size=8, lr=2e-3, val_step=3, patience=5,
                      logger_name=tempfile.mkdtemp(prefix="runs_"))


class ImageEncoder(nn.Module):
    def __init__(self, embed_size=32, n_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(32, embed_size)
        self.drop = nn.Dropout(0.3)
        self.cls = nn.Linear(embed_size, n_classes)

    def forward(self, images):
        feats = torch.flatten(self.features(images), 1)
        emb = F.normalize(self.fc(feats), dim=-1)
        return self.cls(self.drop(emb))


class Trainer:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt
        self.optimizer = torch.optim.Adam(model.parameters(), lr=opt.lr)
        self.Eiters = 0
        self.train_batches = 0
        self.best_rsum = -1.0
        self.bad_epochs = 0

    def validate(self, val_loader):
        self.model.eval()
        correct = total = 0
        with torch.no_grad():
            for images, labels in val_loader:
                correct += (self.model(images).argmax(1) == labels).sum().item()
                total += labels.numel()
        return correct / total

    def save_checkpoint(self, score):
        if score > self.best_rsum:
            self.best_rsum = score
            self.bad_epochs = 0
            torch.save({"model": self.model.state_dict(), "Eiters": self.Eiters},
                       os.path.join(self.opt.logger_name, "model_best.pth.tar"))
        else:
            self.bad_epochs += 1

    def train_epoch(self, train_loader, val_loader, epoch):
        self.model.train()
        for i, (images, labels) in enumerate(train_loader):
            self.Eiters += 1
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(images), labels)
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), 2.0)
            self.optimizer.step()
            self.train_batches += 1
            if self.Eiters % self.opt.val_step == 0:
                score = self.validate(val_loader)
                self.save_checkpoint(score)
                self.model.train()  # fixed: GG607
                print(f"Epoch [{epoch}][{i}] loss {loss.item():.4f} val acc {score:.3f}")


def build_loaders():
    x = torch.randn(96, 3, 16, 16)
    y = torch.randint(0, 4, (96,))
    train_loader = DataLoader(TensorDataset(x[:64], y[:64]), batch_size=opt.batch_size, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[64:], y[64:]), batch_size=opt.batch_size)
    return train_loader, val_loader


def main():
    model = ImageEncoder()
    trainer = Trainer(model, opt)
    train_loader, val_loader = build_loaders()
    for epoch in range(opt.num_epochs):
        trainer.train_epoch(train_loader, val_loader, epoch)
        if trainer.bad_epochs >= opt.patience:
            print("early stopping")
            break
    return model, trainer


def check_training():
    torch.manual_seed(0)
    model, trainer = main()
    bn = model.features[1]
    tracked = int(bn.num_batches_tracked)
    assert tracked == trainer.train_batches, (
        f"BatchNorm saw only {tracked} of {trainer.train_batches} training batches in train mode; "
        f"the rest were trained after validate() left the model in eval mode"
    )


if __name__ == "__main__":
    check_training()
    print("FIXED: ok")
