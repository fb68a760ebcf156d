"""The fixed evaluation loops: no_grad, inference_mode, a decorator, or stored numbers.

Sources (rewritten in our own words, structure kept):
* https://github.com/MarvinLvn/voice-type-classifier/issues/12 - `predictions.append(p.tolist())`
  and `p.detach().cpu()` as fixes.
* https://github.com/XiaoYee/emotion_classification/issues/3 - the loop under `torch.no_grad()`.
* https://github.com/pytorch/pytorch/issues/4932 - imagenet `validate()` with `torch.no_grad()`
  and `loss.item()` in the meter.
* https://github.com/GT-RIPL/AlwaysBeDreaming-DFCIL/issues/9 - the model call moved inside
  the no_grad block.
* https://github.com/skorch-dev/skorch/pull/219 - "no grad during valid": a decorated step.
"""

import torch
from torch import nn


def predict(model, dataloader):
    model.eval()
    predictions = []
    for batch in dataloader:
        p = model(batch)
        predictions.append(p.tolist())
    return predictions


def predict_images(model, dataloader):
    model.eval()
    predictions = []
    for batch in dataloader:
        p = model(batch)
        predictions.append(p.detach().cpu())
    return torch.cat(predictions)


def extract_features(test_loader):
    extractor = nn.Sequential(nn.Linear(16, 8), nn.ReLU())
    extractor.eval()
    features = []
    with torch.no_grad():
        for batch_idx, (data, label) in enumerate(test_loader):
            features.append(extractor(data))
    return features


def validate(val_loader, model, criterion):
    model.eval()
    total_loss = 0.0
    with torch.no_grad():
        for i, (inputs, target) in enumerate(val_loader):
            loss = criterion(model(inputs), target)
            total_loss += loss.item()
    return total_loss / len(val_loader)


class Learner:
    def __init__(self) -> None:
        self.model = nn.Linear(10, 4)

    def validation(self, dataloader):
        self.model.eval()
        outputs = []
        for inputs, target in dataloader:
            with torch.no_grad():
                output = self.model(inputs.float())
            outputs.append(output)
        return torch.cat(outputs)

    @torch.no_grad()
    def evaluation_step(self, inputs):
        self.model.eval()
        return self.model(inputs)

    def predict_proba(self, batches):
        probas = []
        for inputs in batches:
            probas.append(torch.softmax(self.evaluation_step(inputs), dim=1))
        return torch.cat(probas)


def embed_corpus(encoder, batches):
    encoder.eval()
    embeddings = []
    with torch.inference_mode():
        for tokens in batches:
            embeddings.append(encoder(tokens))
    return torch.cat(embeddings)
