"""The loss a LightningModule's `training_step` returns is what the Trainer calls
`backward()` on (automatic optimization), so it must carry the graph back to the model.

Reports of the error raised from inside the Trainer's backward (their code rewritten in our
own words where its structure is kept; the causes below are the ones GradGuard can prove,
not a claim about each thread's conclusion):
* https://github.com/Lightning-AI/pytorch-lightning/issues/2331 - "element 0 of tensors does
  not require grad and does not have a grad_fn" from an autoencoder's training_step.
* https://github.com/Lightning-AI/pytorch-lightning/issues/9299 - the same error from the
  Trainer's optimizer closure.
* https://github.com/sktime/pytorch-forecasting/issues/689 - the same error with a custom
  loss function.
The double backward follows Lightning's documented contract: with automatic optimization the
Trainer runs backward itself; calling it by hand as well needs `automatic_optimization =
False` and `self.manual_backward`.
"""
import lightning as L
import torch
import torch.nn.functional as F
from torch import nn


# A loss computed under no_grad, then returned to the Trainer.
class Forecaster(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        with torch.no_grad():  # expect: GG101
            prediction = self.net(x)
            loss = F.mse_loss(prediction, torch.zeros_like(prediction))
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


# Backward called by hand as well, with automatic optimization still on: the Trainer's
# backward is the second one.
class DoubleBackward(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.fc(x), y)
        loss.backward()  # expect: GG202
        return {"loss": loss}


# Look-alikes that are right.
class ManualOptimization(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        x, y = batch
        optimizer = self.optimizers()
        loss = F.cross_entropy(self.fc(x), y)
        optimizer.zero_grad()
        self.manual_backward(loss)
        optimizer.step()
        return loss.detach()


class SkipsSomeBatches(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        if x.numel() == 0:
            return None
        logits = self.fc(x)
        with torch.no_grad():
            accuracy = (logits.argmax(1) == y).float().mean()
        self.log("acc", accuracy)
        return {"loss": F.cross_entropy(logits, y), "acc": accuracy}
