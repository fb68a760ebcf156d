"""A scientific-concept coreference model whose validation and test code turns the logits
into probabilities with softmax and then gives them to `nn.CrossEntropyLoss`, which applies
log-softmax again: the validation loss gets stuck near 1.0 (a floor of about 0.74 per
example) while the training loss, computed on the logits, keeps falling. Fixed upstream by
giving the loss the logits.

Source (rewritten in our own words, structure kept): https://github.com/ariecattan/SciCo/issues/2
- `models/muticlass.py`: a multiclass module with a training step on logits and a
validation step that softmaxes before the loss.
"""

import torch
from torch import nn


class MulticlassModel(nn.Module):
    def __init__(self, hidden: int = 16, num_classes: int = 4) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(12, hidden), nn.ReLU())
        self.linear = nn.Linear(hidden, num_classes)
        self.criterion = nn.CrossEntropyLoss()

    def forward(self, x):
        return self.linear(self.encoder(x))

    def training_step(self, x, y):
        y_hat = self(x)
        return self.criterion(y_hat, y)

    def validation_step(self, x, y):
        y_hat = torch.softmax(self(x), dim=1)
        loss = self.criterion(y_hat, y)  # expect: GG110
        return loss, y_hat

    def validation_step_fixed(self, x, y):
        logits = self(x)
        loss = self.criterion(logits, y)
        return loss, torch.softmax(logits, dim=1)


def validate(model, x, y):
    """The same validation outside the class, with the functional loss."""
    model.eval()
    with torch.no_grad():
        scores = torch.softmax(model(x), dim=-1)
        loss = nn.functional.cross_entropy(scores, y)  # expect: GG110
    return loss.item()


def validate_logits(model, x, y):
    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y)
        probabilities = torch.softmax(logits, dim=-1)
    return loss.item(), probabilities


model = MulticlassModel()
x, y = torch.randn(6, 12), torch.randint(0, 4, (6,))
model.training_step(x, y).backward()
print(model.validation_step(x, y)[0].item(), model.validation_step_fixed(x, y)[0].item())
print(validate(model, x, y), validate_logits(model, x, y)[0])
