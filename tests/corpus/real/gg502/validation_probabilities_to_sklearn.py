"""A binary classifier's training function collects the sigmoid probabilities of each batch
for an ROC-AUC with scikit-learn-style numpy code, calling `.cpu().numpy()` on a tensor
computed from the model while gradients are recorded: "Can't call numpy() on Tensor that
requires grad". The fixed twin detaches first.

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorchbearer/torchbearer/issues/424 - `y_pred.cpu().numpy()` in a ROC
  metric raises the error.
* https://github.com/Lightning-AI/pytorch-lightning/issues/1429
"""

import numpy as np
import torch
from torch import nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(7, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x).squeeze(1)


def auc_like(scores, labels):
    order = np.argsort(-scores)
    return float(np.mean(labels[order][: len(order) // 2]))


model = Scorer()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.BCEWithLogitsLoss()
x, y = torch.randn(16, 7), (torch.rand(16) > 0.5).float()
all_scores, all_labels = [], []
for epoch in range(2):
    logits = model(x)
    loss = criterion(logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    probs = torch.sigmoid(logits)
    try:
        all_scores.append(probs.cpu().numpy())  # expect: GG502
        raise AssertionError("expected an error")
    except RuntimeError as error:
        assert "Can't call numpy() on Tensor that requires grad" in str(error)
    all_scores.append(probs.detach().cpu().numpy())
    all_labels.append(y.numpy())
print(auc_like(np.concatenate(all_scores), np.concatenate(all_labels)))
# Logging the loss as a NumPy scalar converts the tensor too (`np.float64` of a 0-d tensor
# goes through `float()` and works).
try:
    logged = np.float32(loss)  # expect: GG502
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "Can't call numpy() on Tensor that requires grad" in str(error)
print(np.float64(loss), np.float32(loss.item()))
