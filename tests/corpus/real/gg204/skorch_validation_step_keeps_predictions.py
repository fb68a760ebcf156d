"""A scikit-learn style wrapper whose `validation_step` runs the module in evaluation mode
but with gradient recording on; the validation epoch keeps every prediction (and loss) it
returns, so GPU memory grows with each validation batch until "out of memory". The
maintainers' fix wraps the validation step in `torch.no_grad()`.

Source (rewritten in our own words, structure kept): https://github.com/skorch-dev/skorch/issues/218
- a `NeuralNet` class with `train_step`, `validation_step` and an epoch method that
collects the step results.
"""

import torch
from torch import nn


class NeuralNet:
    def __init__(self, module, lr=0.1):
        self.module_ = module
        self.criterion_ = nn.MSELoss()
        self.optimizer_ = torch.optim.SGD(self.module_.parameters(), lr=lr)

    def train_step(self, Xi, yi):
        self.module_.train()
        self.optimizer_.zero_grad()
        y_pred = self.module_(Xi)
        loss = self.criterion_(y_pred, yi)
        loss.backward()
        self.optimizer_.step()
        return {"loss": loss.item(), "y_pred": y_pred.detach()}

    def validation_step(self, Xi, yi):
        self.module_.eval()
        y_pred = self.module_(Xi)
        loss = self.criterion_(y_pred, yi)
        return {"loss": loss, "y_pred": y_pred}

    def validation_step_fixed(self, Xi, yi):
        self.module_.eval()
        with torch.no_grad():
            y_pred = self.module_(Xi)
            loss = self.criterion_(y_pred, yi)
        return {"loss": loss, "y_pred": y_pred}

    def run_valid_epoch(self, batches):
        y_preds = []
        for Xi, yi in batches:  # expect: GG204
            step = self.validation_step(Xi, yi)
            y_preds.append(step["y_pred"])
        return torch.cat(y_preds)


def evaluate(model, batches):
    """The same validation written as one function: the outputs keep their graphs."""
    model.eval()
    y_preds = []
    for Xi, yi in batches:  # expect: GG204
        y_pred = model(Xi)
        y_preds.append(y_pred)
    return torch.cat(y_preds)


def evaluate_no_grad(model, batches):
    model.eval()
    y_preds = []
    with torch.no_grad():
        for Xi, yi in batches:
            y_preds.append(model(Xi))
    return torch.cat(y_preds)


module = nn.Sequential(nn.Linear(3, 8), nn.Dropout(0.2), nn.Linear(8, 1))
net = NeuralNet(module)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]
net.train_step(*data[0])
assert net.run_valid_epoch(data).requires_grad
assert not net.validation_step_fixed(*data[0])["y_pred"].requires_grad
assert evaluate(module, data).requires_grad
assert not evaluate_no_grad(module, data).requires_grad
