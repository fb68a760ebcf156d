"""An autoencoder trainer class keeps the reconstruction in `self.recon` as `.data` (to plot
it later without holding the graph) and computes the loss from that attribute in
`train_batch`: the loss has no history and `backward()` raises "element 0 of tensors does
not require grad and does not have a grad_fn". The fixed twin stores a detached copy for the
plot and computes the loss from the output itself.

Sources (rewritten in our own words, structure kept):
* https://blog.csdn.net/realitycss/article/details/116855385 - `.data` of a tensor that
  requires grad is only its data, outside the graph.
"""

import torch
from torch import nn


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(12, 3)
        self.dec = nn.Linear(3, 12)

    def forward(self, x):
        return self.dec(torch.tanh(self.enc(x)))


class Trainer:
    def __init__(self, model):
        self.model = model
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.recon = None

    def train_batch(self, x):
        self.recon = self.model(x).data  # expect: GG103
        loss = self.criterion(self.recon, x)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def train_batch_fixed(self, x):
        out = self.model(x)
        self.recon = out.detach()
        loss = self.criterion(out, x)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


trainer = Trainer(AutoEncoder())
x = torch.randn(5, 12)
try:
    trainer.train_batch(x)
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)
print(trainer.train_batch_fixed(x))
