"""A soft-Dice loss module that detaches its input in a static helper.

`SoftDice.forward` prepares its inputs with `self._prepare(logits, target)`, a
`@staticmethod` returning `logits.clone().detach().float()` ("work on a copy") and the
target as floats. The loop hands it the model's logits and a mask of loader batches, so the
loss has no history and `loss.backward()` raises "element 0 of tensors does not require
grad and does not have a grad_fn" (checked with torch 2.13.0). The static helper gets the
call's arguments from its first parameter on, and a helper that is one `return` is run
with the call's arguments even inside the run of `forward` for the loop's call.

Silent: the same module whose helper keeps the history (`logits.float()`), used by a second
loop. Modelled on a blind-corpus case (a segmentation trainer's Dice loss that detaches its
input), written anew for this corpus.
"""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class SoftDice(nn.Module):
    @staticmethod
    def _prepare(logits, target):
        return logits.clone().detach().float(), target.float()  # expect: GG103

    def forward(self, logits, target):
        logits, target = self._prepare(logits, target)
        probs = torch.sigmoid(logits).flatten(1)
        target = target.flatten(1)
        overlap = (probs * target).sum(1)
        return 1 - (2 * overlap + 1) / (probs.sum(1) + target.sum(1) + 1)


class KeptDice(nn.Module):
    @staticmethod
    def _prepare(logits, target):
        return logits.float(), target.float()

    def forward(self, logits, target):
        logits, target = self._prepare(logits, target)
        probs = torch.sigmoid(logits).flatten(1)
        target = target.flatten(1)
        overlap = (probs * target).sum(1)
        return (1 - (2 * overlap + 1) / (probs.sum(1) + target.sum(1) + 1)).mean()


def train(model, loader, criterion):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for images, masks in loader:
        optimizer.zero_grad()
        loss = criterion(model(images), masks).mean()
        loss.backward()
        optimizer.step()


def train_kept(model, loader, criterion):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for images, masks in loader:
        optimizer.zero_grad()
        loss = criterion(model(images), masks)
        loss.backward()
        optimizer.step()


def main():
    images = torch.rand(8, 1, 6, 6)
    loader = DataLoader(TensorDataset(images, (images > 0.5).float()), batch_size=4)
    try:
        train(nn.Conv2d(1, 1, 3, padding=1), loader, SoftDice())
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected backward to fail")
    train_kept(nn.Conv2d(1, 1, 3, padding=1), loader, KeptDice())


if __name__ == "__main__":
    main()
