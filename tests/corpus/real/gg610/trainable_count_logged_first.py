"""Only the unfrozen parameters are filtered out for the optimizer, but the filter is first
counted for a log line.

Modelled on https://github.com/YanaiEliyahu/AdasOptimizer/issues/2 (written anew: there the
optimizer itself read the filter twice; here the script does): a filter object is
iterated once, and the optimizer then raises "optimizer got an empty parameter list".
"""

import torch
from torch import nn
from torchvision.models import resnet18


def build(num_classes, lr):
    model = resnet18(weights=None)
    for p in model.parameters():
        p.requires_grad = False
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    trainable = filter(lambda p: p.requires_grad, model.parameters())
    print("trainable tensors:", len(list(trainable)))
    optimizer = torch.optim.SGD(trainable, lr=lr, momentum=0.9)  # expect: GG610
    return model, optimizer
