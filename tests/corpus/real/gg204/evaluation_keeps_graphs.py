"""Evaluation loops that keep outputs with autograd history (GG204).

The marker sits on the loop, where GradGuard reports this rule.

Sources (rewritten in our own words, structure kept):
* https://github.com/MarvinLvn/voice-type-classifier/issues/12 - an inference loop appends
  `model(batch)` to `predictions` and runs out of GPU memory; training never did.
* https://github.com/XiaoYee/emotion_classification/issues/3 - evaluation stored
  `output_feature` per batch and ran out of memory; fixed by wrapping the loop in no_grad.
* https://github.com/pytorch/pytorch/issues/4932 - imagenet `validate()` after `volatile`
  stopped working: `model.eval()` alone, memory grows during validation.
* https://github.com/GT-RIPL/AlwaysBeDreaming-DFCIL/issues/9 - `with torch.no_grad()` wraps
  only the data loading; the model call and the accumulated outputs are outside it.
"""

import torch
from torch import nn


# Source: voice-type-classifier#12, the inference loop with the model as a parameter.
def predict(model, dataloader):
    model.eval()
    predictions = []
    for batch in dataloader:  # expect: GG204
        p = model(batch)
        predictions.append(p)
    return torch.cat(predictions)


# Source: emotion_classification#3, a feature extractor built in the file.
def extract_features(test_loader):
    extractor = nn.Sequential(nn.Linear(16, 8), nn.ReLU())
    extractor.eval()
    features = []
    for batch_idx, (data, label) in enumerate(test_loader):  # expect: GG204
        output_feature = extractor(data)
        features.append(output_feature)
    return features


# Source: pytorch#4932, imagenet validate(): the loss is summed as a tensor.
def validate(val_loader, model, criterion):
    model.eval()
    total_loss = 0
    for i, (inputs, target) in enumerate(val_loader):  # missed: GG204
        output = model(inputs)
        loss = criterion(output, target)
        total_loss += loss
    return total_loss / len(val_loader)


class Learner:
    """AlwaysBeDreaming#9: validation method of a learner object; no_grad only around data."""

    def __init__(self) -> None:
        self.model = nn.Linear(10, 4)

    def validation(self, dataloader):
        self.model.eval()
        outputs = []
        for inputs, target in dataloader:  # expect: GG204
            with torch.no_grad():
                inputs = inputs.float()
            output = self.model(inputs)
            outputs.append(output)
        return torch.cat(outputs)
