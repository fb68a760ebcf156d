"""Validation loops that keep graphs through the shapes trainers use (GG204): named totals in
a dict, totals written `total = total + loss`, a model handed to the trainer and switched
with `self.model.eval()`, and a step method that switches the model and returns what the
epoch loop keeps. The marker sits on the loop, where GradGuard reports this rule.

Sources (rewritten in our own words, structure kept):
* https://github.com/hszhao/semseg/issues/60 - `validate()` calls `model.eval()` and runs the
  model on every batch without `torch.no_grad()`: out of memory during validation.
* https://github.com/MultimediaTechLab/YOLO/pull/83 - per-name loss totals in a dict of
  tensors (`total_loss[loss_name] += ...`), fixed with `.item()`.
* https://github.com/Prateek-Havanur/Novel_classification/blob/main/utils/tools.py -
  `val_epoch` sums `epoch_loss = epoch_loss + val_loss` (under no_grad there: the negative).
* https://github.com/OpenNMT/OpenNMT-py/issues/1141 - a trainer's `validate()` switches
  `self.model.eval()` (a model given to the trainer) and forgets `torch.no_grad()`.
* https://github.com/MarvinLvn/voice-type-classifier/issues/12 - predictions appended as
  tensors during inference run out of GPU memory; `.tolist()` / `.detach().cpu()` fix it.
* https://github.com/skorch-dev/skorch/issues/218 and https://github.com/skorch-dev/skorch/pull/219
  - the step method switches to eval mode and returns the predictions the epoch keeps; the
  fix runs the step under `torch.no_grad()`.
* https://github.com/ludwig-ai/ludwig/pull/1739 - batch prediction gathers every batch's
  outputs; `torch.no_grad()` added around it to relieve memory pressure. Here the outputs
  are gathered by concatenation (`preds = torch.cat([preds, out])`).
"""

import torch
from torch import nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 1))

    def forward(self, x):
        return self.body(x)


# semseg#60 with YOLO#83's dict of named totals.
def validate_named(model, val_loader):
    criterion = nn.MSELoss()
    model.eval()
    totals = {"mse": 0.0, "mae": 0.0}
    for x, y in val_loader:  # expect: GG204
        out = model(x)
        totals["mse"] += criterion(out, y)
        totals["mae"] += (out - y).abs().mean()
    return totals


def validate_named_items(model, val_loader):
    criterion = nn.MSELoss()
    model.eval()
    totals = {"mse": 0.0, "mae": 0.0}
    for x, y in val_loader:
        out = model(x)
        totals["mse"] += criterion(out, y).item()
        totals["mae"] += (out - y).abs().mean().item()
    return totals


# Novel_classification's val_epoch without its no_grad (semseg#60).
def val_epoch(model, valid_loader):
    criterion = nn.MSELoss()
    model.eval()
    epoch_loss = 0
    for inputs, labels in valid_loader:  # expect: GG204
        output = model(inputs)
        val_loss = criterion(output, labels)
        epoch_loss = epoch_loss + val_loss
    return epoch_loss / len(valid_loader)


def val_epoch_no_grad(model, valid_loader):
    criterion = nn.MSELoss()
    model.eval()
    epoch_loss = 0
    with torch.no_grad():
        for inputs, labels in valid_loader:
            output = model(inputs)
            val_loss = criterion(output, labels)
            epoch_loss = epoch_loss + val_loss
    return epoch_loss / len(valid_loader)


def val_epoch_detached(model, valid_loader):
    criterion = nn.MSELoss()
    model.eval()
    epoch_loss = torch.zeros(())
    for inputs, labels in valid_loader:
        output = model(inputs)
        epoch_loss = epoch_loss + criterion(output, labels).detach()
    return epoch_loss / len(valid_loader)


class Predictor:
    """OpenNMT#1141 / voice-type-classifier#12: the model is handed in; inference keeps
    the predictions."""

    def __init__(self, model):
        self.model = model

    def predict(self, batches):
        self.model.eval()
        predictions = []
        for batch in batches:  # expect: GG204
            predictions.append(self.model(batch))
        return torch.cat(predictions)

    def predict_lists(self, batches):
        self.model.eval()
        predictions = []
        for batch in batches:
            predictions.append(self.model(batch).tolist())
        return predictions

    def predict_no_grad(self, batches):
        self.model.eval()
        predictions = []
        with torch.no_grad():
            for batch in batches:
                predictions.append(self.model(batch))
        return torch.cat(predictions)


class Net:
    """skorch#218: the step switches the module to eval mode; the epoch keeps its result."""

    def __init__(self):
        self.module_ = Regressor()
        self.criterion_ = nn.MSELoss()
        self.optimizer_ = torch.optim.SGD(self.module_.parameters(), lr=0.1)

    def evaluation_step(self, Xi):
        self.module_.eval()
        return self.module_(Xi)

    @torch.no_grad()
    def inference_step(self, Xi):
        self.module_.eval()
        return self.module_(Xi)

    def fit_step(self, Xi, yi):
        self.module_.train()
        self.optimizer_.zero_grad()
        loss = self.criterion_(self.module_(Xi), yi)
        loss.backward()
        self.optimizer_.step()
        return loss.item()

    def predict_proba(self, batches):
        y_probas = []
        for Xi in batches:  # expect: GG204
            y_probas.append(self.evaluation_step(Xi))
        return torch.cat(y_probas)

    def predict_proba_no_grad(self, batches):
        y_probas = []
        for Xi in batches:
            y_probas.append(self.inference_step(Xi))
        return torch.cat(y_probas)

    def fit_epoch(self, batches):
        losses = []
        for Xi, yi in batches:
            losses.append(self.fit_step(Xi, yi))
        return losses


def batch_predict(model, batches):
    """ludwig#1739: the predictions grow by concatenation, each batch's graph with them."""
    model.eval()
    preds = None
    for x in batches:  # expect: GG204
        out = model(x)
        preds = out if preds is None else torch.cat([preds, out])
    return preds


def batch_predict_empty_start(model, batches):
    model.eval()
    preds = torch.empty(0, 1)
    for x in batches:  # expect: GG204
        preds = torch.cat((preds, model(x)), dim=0)
    return preds


def batch_predict_detached(model, batches):
    model.eval()
    preds = torch.empty(0, 1)
    for x in batches:
        preds = torch.cat((preds, model(x).detach().cpu()), dim=0)
    return preds


def batch_predict_no_grad(model, batches):
    model.eval()
    preds = None
    with torch.no_grad():
        for x in batches:
            out = model(x)
            preds = out if preds is None else torch.cat([preds, out])
    return preds


regressor = Regressor()
data = [(torch.randn(5, 4), torch.randn(5, 1)) for _ in range(3)]
assert validate_named(regressor, data)["mse"].requires_grad
assert not torch.is_tensor(validate_named_items(regressor, data)["mse"])
assert val_epoch(regressor, data).requires_grad
assert not val_epoch_no_grad(regressor, data).requires_grad
assert not val_epoch_detached(regressor, data).requires_grad
predictor = Predictor(regressor)
assert predictor.predict([x for x, _ in data]).requires_grad
assert isinstance(predictor.predict_lists([x for x, _ in data])[0], list)
assert not predictor.predict_no_grad([x for x, _ in data]).requires_grad
net = Net()
net.fit_epoch(data)
assert net.predict_proba([x for x, _ in data]).requires_grad
assert not net.predict_proba_no_grad([x for x, _ in data]).requires_grad
inputs = [x for x, _ in data]
assert batch_predict(regressor, inputs).requires_grad
assert batch_predict_empty_start(regressor, inputs).requires_grad
assert not batch_predict_detached(regressor, inputs).requires_grad
assert not batch_predict_no_grad(regressor, inputs).requires_grad
