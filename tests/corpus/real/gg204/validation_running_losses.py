"""The validation half of a visibility-estimation script: after `model.eval()` it sums the
validation loss tensors (`val_running_loss += loss`, ...) without `torch.no_grad()`, so each
batch's graph is kept for a backward that never comes and memory grows. The maintainer's
fix turned every `+=` into `+= x.item()`; wrapping the loop in `torch.no_grad()` also works.

Source (rewritten in our own words, structure kept): https://github.com/samuelyu2002/ImVisible/issues/2
"""

import torch
from torch import nn


class VisibilityNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.1))
        self.regressor = nn.Linear(16, 1)
        self.classifier = nn.Linear(16, 4)

    def forward(self, x):
        h = self.body(x)
        return self.regressor(h), self.classifier(h)


def validate(model, val_batches):
    mse = nn.MSELoss()
    cross_entropy = nn.CrossEntropyLoss()
    model.eval()
    val_running_loss = 0.0
    val_mse_loss = 0.0
    val_ce_loss = 0.0
    for x, distance, label in val_batches:  # expect: GG204
        pred_distance, pred_label = model(x)
        MSE = mse(pred_distance, distance)
        CE = cross_entropy(pred_label, label)
        loss = MSE + CE
        val_running_loss += loss
        val_mse_loss += MSE
        val_ce_loss += CE
    return val_running_loss, val_mse_loss, val_ce_loss


def validate_items(model, val_batches):
    mse = nn.MSELoss()
    cross_entropy = nn.CrossEntropyLoss()
    model.eval()
    val_running_loss = 0.0
    val_mse_loss = 0.0
    val_ce_loss = 0.0
    for x, distance, label in val_batches:
        pred_distance, pred_label = model(x)
        MSE = mse(pred_distance, distance)
        CE = cross_entropy(pred_label, label)
        loss = MSE + CE
        val_running_loss += loss.item()
        val_mse_loss += MSE.item()
        val_ce_loss += CE.item()
    return val_running_loss, val_mse_loss, val_ce_loss


def validate_no_grad(model, val_batches):
    mse = nn.MSELoss()
    model.eval()
    val_running_loss = 0.0
    with torch.no_grad():
        for x, distance, label in val_batches:
            pred_distance, pred_label = model(x)
            val_running_loss += mse(pred_distance, distance)
    return val_running_loss


net = VisibilityNet()
data = [(torch.randn(4, 8), torch.randn(4, 1), torch.randint(0, 4, (4,))) for _ in range(3)]
assert validate(net, data)[0].requires_grad
validate_items(net, data)
assert not validate_no_grad(net, data).requires_grad
