"""GG104 - fixed version: the head is re-enabled with requires_grad = True.

Only the encoder stays frozen; the head parameters require grad, so the loss has
a graph and backward() trains the head.

Modelled on: https://github.com/AaronComo/LipFD/issues/18
"""
import sys
import types
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_opt():
    return types.SimpleNamespace(lr=1e-3, beta1=0.9, epochs=1, batch_size=8,
                                 fix_encoder=True, device="cpu", loss_freq=2)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))

    def forward(self, x):
        return self.conv(x).flatten(1)


class LipDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1))

    def get_layers(self):
        return self.head

    def forward(self, x):
        return self.head(self.encoder(x)).squeeze(1)


class Trainer:
    def __init__(self, opt):
        self.opt = opt
        self.device = torch.device(opt.device)
        self.model = LipDetector().to(self.device)
        if opt.fix_encoder:
            for p in self.model.encoder.parameters():
                p.requires_grad = False
            for p in self.model.get_layers().parameters():
                p.requires_grad = True
        params = self.model.get_layers().parameters()
        self.optimizer = torch.optim.AdamW(params, lr=opt.lr, betas=(opt.beta1, 0.999))
        self.loss_fn = nn.BCEWithLogitsLoss()
        self.total_steps = 0

    def set_input(self, batch):
        self.input = batch[0].to(self.device)
        self.label = batch[1].to(self.device).float()

    def forward(self):
        self.output = self.model(self.input)
        self.loss = self.loss_fn(self.output, self.label)

    def optimize_parameters(self):
        self.forward()
        self.optimizer.zero_grad()
        self.loss.backward()  # fixed: GG104
        self.optimizer.step()
        self.total_steps += 1


def main():
    torch.manual_seed(0)
    opt = get_opt()
    data = TensorDataset(torch.randn(32, 3, 16, 16), torch.randint(0, 2, (32,)))
    loader = DataLoader(data, batch_size=opt.batch_size, shuffle=True)
    trainer = Trainer(opt)
    for epoch in range(opt.epochs):
        trainer.model.train()
        for i, batch in enumerate(loader):
            trainer.set_input(batch)
            trainer.optimize_parameters()
            if trainer.total_steps % opt.loss_freq == 0:
                print(f"step {trainer.total_steps}: loss {trainer.loss.item():.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
