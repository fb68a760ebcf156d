"""LightningModules: `nn.Module`s whose hooks the Trainer calls. `training_step` runs with
gradient recording on; the evaluation hooks (`validation_step`, `test_step`, `predict_step`,
`on_validation_*`...) run under no_grad or inference_mode, so nothing there is reported as
requiring grad.

Sources (rewritten in our own words, structure kept):
* https://github.com/Lightning-AI/pytorch-lightning/issues/2331 - an autoencoder
  LightningModule with conv layers built in `__init__`, `forward` returning a tuple and a
  `training_step` computing its loss from `self.forward(x)`.
* https://github.com/Lightning-AI/pytorch-lightning/issues/9299 - a classifier
  LightningModule whose layers and loss live on `self`, with metrics computed in the steps.
* Lightning's own test helpers (tests_pytorch/helpers/simple_models.py at the snapshot
  checked): layers registered with `setattr` in `__init__`, `forward` ending in softmax,
  the steps giving that to cross_entropy.
"""

import lightning as L
import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from torch import nn


# Source: pytorch-lightning#9299 - metrics of the training batch converted with NumPy.
class Classifier(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 16, 3)
        self.fc = nn.Linear(16 * 26 * 26, 10)
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x):
        return self.fc(F.relu(self.conv(x)).flatten(1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = self.loss(logits, y)
        confidence = logits.softmax(1).max(1).values.numpy()  # expect: GG502
        self.log("confidence", float(confidence.mean()))
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.log("val_conf", float(logits.softmax(1).max(1).values.numpy().mean()))

    def test_step(self, batch, batch_idx):
        x, y = batch
        return self(x).numpy()

    def predict_step(self, batch, batch_idx):
        return self(batch).numpy()

    def on_validation_epoch_end(self):
        print(self(torch.randn(1, 1, 28, 28)).numpy())


# Source: simple_models.py - layers added with setattr in __init__, forward ends in softmax.
class SoftmaxClassifier(L.LightningModule):
    def __init__(self, width=32):
        super().__init__()
        for i in range(3):
            setattr(self, f"layer_{i}", nn.Linear(width, width))
        self.layer_end = nn.Linear(width, 3)

    def forward(self, x):
        for i in range(3):
            x = F.relu(getattr(self, f"layer_{i}")(x))
        return F.softmax(self.layer_end(x), dim=1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        probs = self.forward(x)
        return F.cross_entropy(probs, y)  # expect: GG110

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=0.01)


# Source: pytorch-lightning#2331 - an autoencoder; the reconstruction is plotted in the
# training step without detaching it.
class Autoencoder(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Conv1d(1, 8, 3)
        self.decoder = nn.ConvTranspose1d(8, 1, 3)

    def forward(self, x):
        encoded = F.relu(self.encoder(x))
        return self.decoder(encoded), encoded

    def training_step(self, batch, batch_idx):
        x, _ = batch
        decoded, encoded = self.forward(x)
        loss = F.mse_loss(decoded, x)
        if batch_idx == 0:
            print(decoded.detach().numpy(), encoded.numpy())  # expect: GG502
        return {"loss": loss}

    def validation_step(self, batch, batch_idx):
        x, _ = batch
        decoded, _ = self.forward(x)
        print(decoded.numpy())
