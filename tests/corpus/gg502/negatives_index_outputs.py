"""The index half of max/min/sort/topk never requires grad: no GG502 on `preds.numpy()`.

Modelled on the classifier accuracy code of the PyTorch transfer-learning tutorial
(https://pytorch.org/tutorials/beginner/transfer_learning_tutorial.html), where
`_, preds = torch.max(outputs, 1)` feeds the accuracy count; the team saw two GG502 false
positives on this shape in real code. The values half keeps its history.
"""

import torch
from torch import nn

classifier = nn.Linear(8, 5)


def accuracy_from_max(inputs, labels):
    outputs = classifier(inputs)
    _, preds = torch.max(outputs, 1)
    return (preds.numpy() == labels.numpy()).mean()


def method_forms(inputs):
    outputs = classifier(inputs)
    best, where = outputs.max(dim=1)
    ranked = outputs.sort(descending=True)
    top = outputs.topk(3, dim=1)
    return where.numpy(), ranked.indices.numpy(), top[1].numpy(), top.indices.tolist()


def values_half_keeps_history(inputs):
    outputs = classifier(inputs)
    best, _ = torch.max(outputs, 1)
    return best.numpy()  # expect: GG502


def elementwise_max_is_a_tensor(inputs):
    outputs = classifier(inputs)
    clipped = torch.max(outputs, torch.zeros_like(outputs))
    return clipped.numpy()  # expect: GG502
