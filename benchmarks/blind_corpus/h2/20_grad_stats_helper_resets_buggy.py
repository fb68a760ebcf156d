"""GG605: a logging helper resets the gradients between backward() and the optimizer step.

Category GG605. ``AutoencoderTrainer.train_step`` calls ``_grad_stats_and_reset`` after
backward() to log per-layer gradient norms. The helper ends with ``self.model.zero_grad()``
(the author meant "we're done with the gradients"), but the optimizer step comes only
after the helper returns, so Adam finds ``.grad`` set to None and skips every parameter.
Silent effect: no error; the logged gradient norms look healthy but the weights never
change (asserted after training).
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class ConvAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU(),
                                     nn.Conv2d(4, 8, 3, stride=2, padding=1), nn.ReLU())
        self.decoder = nn.Sequential(nn.ConvTranspose2d(8, 4, 2, stride=2), nn.ReLU(),
                                     nn.ConvTranspose2d(4, 1, 2, stride=2), nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))


class AutoencoderTrainer:
    def __init__(self, model, lr=1e-3, device="cpu"):
        self.model = model.to(device)
        self.device = device
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.metrics = {"loss": [], "grad_norm": []}

    def _grad_stats_and_reset(self):
        norms = {n: p.grad.norm().item() for n, p in self.model.named_parameters() if p.grad is not None}
        self.model.zero_grad()  # bug: GG605
        return norms

    def train_step(self, images):
        images = images.to(self.device)
        recon = self.model(images)
        loss = F.binary_cross_entropy(recon, images)
        loss.backward()
        norms = self._grad_stats_and_reset()
        self.optimizer.step()
        self.metrics["loss"].append(loss.item())
        self.metrics["grad_norm"].append(sum(norms.values()))
        return loss.item()

    def train_epoch(self, loader, epoch):
        self.model.train()
        for step, (images,) in enumerate(loader):
            loss = self.train_step(images)
            if step % 3 == 0:
                print(f"epoch {epoch} step {step}: bce {loss:.4f} |g| {self.metrics['grad_norm'][-1]:.3f}")


def main():
    torch.manual_seed(18)
    images = torch.rand(36, 1, 8, 8)
    loader = DataLoader(TensorDataset(images), batch_size=6, shuffle=True)
    trainer = AutoencoderTrainer(ConvAutoencoder())
    before = copy.deepcopy(trainer.model.state_dict())
    for epoch in range(2):
        trainer.train_epoch(loader, epoch)
    after = trainer.model.state_dict()
    return sum(not torch.equal(before[k], after[k]) for k in before), len(before)


if __name__ == "__main__":
    changed, total = main()
    if changed == 0:
        print(f"BUGGY: 0 of {total} parameter tensors changed although gradients were logged")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
