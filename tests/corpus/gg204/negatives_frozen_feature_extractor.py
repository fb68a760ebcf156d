"""A feature extractor frozen in this file, evaluated by an entry point nothing here calls.

Its parameters no longer require grad, so the collected features carry no graph: keeping
them is fine. The model is known only from `backbone.eval()`; the freeze is what tells.
"""

import torch


def freeze(backbone):
    for parameter in backbone.parameters():
        parameter.requires_grad_(False)
    return backbone


def extract_features(backbone, loader):
    backbone.eval()
    features = []
    for images in loader:
        features.append(backbone(images))
    return torch.cat(features)
