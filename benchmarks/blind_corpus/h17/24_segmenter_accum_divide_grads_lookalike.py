"""GG606 look-alike - accumulated losses are not divided, the gradients are (before step).

The segmentation trainer backpropagates the raw per-micro-batch loss on every
accumulation step, which looks like the classic "forgot to divide by the
number of accumulation steps" mistake.  But before optimizer.step() it scales
every parameter's .grad by 1/accum_steps, which is mathematically the same as
dividing the loss.  Checked: the gradient used for the step equals the
gradient of the mean loss over the whole effective batch.

Modelled on: none found (grad-division variant of accumulation, as in some detection repos)
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class TinySegNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.GroupNorm(4, 16), nn.ReLU(),
                                 nn.Conv2d(16, 16, 3, padding=1, stride=2), nn.ReLU())
        self.dec = nn.Sequential(nn.ConvTranspose2d(16, 16, 2, stride=2), nn.ReLU(),
                                 nn.Conv2d(16, n_classes, 1))

    def forward(self, x):
        return self.dec(self.enc(x))


class Trainer:
    def __init__(self, model, accum_steps=3, lr=0.05, max_norm=5.0):
        self.model = model
        self.accum_steps = accum_steps
        self.max_norm = max_norm
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.step_grads = []

    def compute_loss(self, images, masks):
        return F.cross_entropy(self.model(images), masks)

    def average_gradients(self):
        for p in self.model.parameters():
            if p.grad is not None:
                p.grad.div_(self.accum_steps)

    def train_epoch(self, loader):
        self.model.train()
        self.optimizer.zero_grad()
        for i, (images, masks) in enumerate(loader):
            loss = self.compute_loss(images, masks)
            loss.backward()
            if (i + 1) % self.accum_steps == 0:
                self.average_gradients()
                self.step_grads.append(self.model.dec[2].weight.grad.clone())
                nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)
                self.optimizer.step()
                self.optimizer.zero_grad()
        return loss.item()


def main():
    torch.manual_seed(0)
    images = torch.randn(12, 3, 16, 16)
    masks = torch.randint(0, 3, (12, 16, 16))
    loader = DataLoader(TensorDataset(images, masks), batch_size=2, shuffle=False)
    model = TinySegNet()
    ref = copy.deepcopy(model)
    trainer = Trainer(model)
    for epoch in range(2):
        print(f"epoch {epoch}: last loss {trainer.train_epoch(loader):.4f}")
    F.cross_entropy(ref(images[:6]), masks[:6]).backward()
    assert torch.allclose(trainer.step_grads[0], ref.dec[2].weight.grad, atol=1e-6)


if __name__ == "__main__":
    main()
    print("OK")
