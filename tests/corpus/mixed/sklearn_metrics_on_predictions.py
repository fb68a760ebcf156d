"""Validation metrics computed with scikit-learn on predictions that still require grad:
every scikit-learn metric turns its inputs into NumPy arrays, so a tensor with history (or a
list of them) raises "Can't call numpy() on Tensor that requires grad" (GG502, checked with
scikit-learn 1.9.1 and torch 2.13.0). Class indices from `argmax` never require grad, and
detached probabilities are fine.

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorchbearer/torchbearer/issues/424 - an ROC AUC metric given the
  model's raw predictions during training raises the numpy() error.
* https://github.com/FGA-DIKU/BONSAI/issues/183 - probabilities and targets handed to
  sklearn.metrics as tensors.
"""

import torch
from sklearn import metrics
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score
from torch import nn


def validate(model, batches):
    model.eval()
    scores = []
    for x, y in batches:
        logits = model(x)
        probs = torch.softmax(logits, dim=1)[:, 1]
        preds = logits.argmax(dim=1)
        scores.append(
            {
                "acc": accuracy_score(y, preds),
                "f1": f1_score(y, preds),
                "auc": roc_auc_score(y, probs),  # expect: GG502
                "mse": metrics.mean_squared_error(y_true=y.float(), y_pred=probs),  # expect: GG502
            }
        )
    return scores


def validate_detached(model, batches):
    model.eval()
    scores = []
    with torch.no_grad():
        for x, y in batches:
            probs = torch.softmax(model(x), dim=1)[:, 1]
            scores.append(roc_auc_score(y, probs))
    for x, y in batches:
        probs = torch.softmax(model(x), dim=1)[:, 1].detach()
        scores.append(metrics.log_loss(y, probs))
    return scores


net = nn.Linear(4, 2)
data = [(torch.randn(8, 4), torch.tensor([0, 1] * 4)) for _ in range(2)]
validate_detached(net, data)
validate(net, data)
