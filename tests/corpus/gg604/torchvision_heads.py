"""Fine-tuning a torchvision classifier: the new head is assigned after the optimizer was
built from the old model's parameters, so the head the forward now runs never trains
(GG604). Each family names its head differently (`fc`, `classifier`, `heads`, `head`);
replacing a submodule that is not the head, or the head before building the optimizer, is
fine."""

import torch
import torchvision
from torch import nn
from torchvision import models


def resnet_head_after_optimizer(classes):
    model = torchvision.models.resnet50(weights=None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    model.fc = nn.Linear(model.fc.in_features, classes)  # expect: GG604
    images, labels = torch.randn(2, 3, 224, 224), torch.tensor([0, 1])
    nn.functional.cross_entropy(model(images), labels).backward()
    optimizer.step()


def efficientnet_head_after_optimizer(classes):
    model = models.efficientnet_b0(weights=None)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, classes))  # expect: GG604
    images, labels = torch.randn(2, 3, 224, 224), torch.tensor([0, 1])
    nn.functional.cross_entropy(model(images), labels).backward()
    optimizer.step()


def vit_head_after_optimizer(classes):
    model = models.vit_b_16(weights=None)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model.heads = nn.Linear(768, classes)  # expect: GG604
    images, labels = torch.randn(2, 3, 224, 224), torch.tensor([0, 1])
    nn.functional.cross_entropy(model(images), labels).backward()
    optimizer.step()


def resnet_head_first(classes):
    model = torchvision.models.resnet18(weights=None)
    model.fc = nn.Linear(model.fc.in_features, classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    images, labels = torch.randn(2, 3, 224, 224), torch.tensor([0, 1])
    nn.functional.cross_entropy(model(images), labels).backward()
    optimizer.step()


def resnet_other_submodule(classes):
    model = torchvision.models.resnet18(weights=None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    model.avgpool = nn.AdaptiveMaxPool2d(1)
    model.classifier = nn.Linear(512, classes)  # a ResNet's forward never runs this name
    images, labels = torch.randn(2, 3, 224, 224), torch.tensor([0, 1])
    nn.functional.cross_entropy(model(images), labels).backward()
    optimizer.step()


def inception_head_after_optimizer(classes):
    model = models.inception_v3(weights=None)  # not in the table: output is a tuple
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    model.fc = nn.Linear(2048, classes)
    images, labels = torch.randn(2, 3, 224, 224), torch.tensor([0, 1])
    nn.functional.cross_entropy(model(images), labels).backward()
    optimizer.step()


for build in (
    resnet_head_after_optimizer,
    efficientnet_head_after_optimizer,
    vit_head_after_optimizer,
    resnet_head_first,
    resnet_other_submodule,
    inception_head_after_optimizer,
):
    build(10)
