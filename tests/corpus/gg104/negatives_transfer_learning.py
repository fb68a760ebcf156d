"""Correct transfer learning: the backbone is frozen, something else trains."""

import torch
from torch import nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(20, 32), nn.ReLU())
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        return self.fc(self.backbone(x))


def new_head_after_freezing():
    model = Classifier(10)
    for p in model.parameters():
        p.requires_grad = False
    model.fc = nn.Linear(32, 3)  # the new head trains
    optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.01)
    x, y = torch.randn(8, 20), torch.randint(0, 3, (8,))
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def freeze_only_the_backbone():
    model = Classifier(3)
    for p in model.backbone.parameters():
        p.requires_grad = False
    x, y = torch.randn(8, 20), torch.randint(0, 3, (8,))
    F.cross_entropy(model(x), y).backward()


def freeze_by_name():
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 3))
    for name, p in model.named_parameters():
        if not name.startswith("2."):
            p.requires_grad = False
    model(torch.randn(8, 20)).sum().backward()


def freeze_first_layer_only():
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 3))
    model[0].requires_grad_(False)
    model(torch.randn(8, 20)).sum().backward()


def frozen_teacher_trained_student():
    teacher = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 3))
    student = nn.Linear(20, 3)
    teacher.requires_grad_(False)
    teacher.eval()
    x = torch.randn(8, 20)
    soft = F.softmax(teacher(x), dim=-1)
    loss = F.kl_div(F.log_softmax(student(x), dim=-1), soft, reduction="batchmean")
    loss.backward()


def freeze_maybe(config):
    model = nn.Linear(20, 3)
    if config.get("freeze"):
        for p in model.parameters():
            p.requires_grad = False
    model(torch.randn(8, 20)).sum().backward()


def linear_probe(model):
    # A model from elsewhere, frozen; a probe on top of it trains.
    for p in model.parameters():
        p.requires_grad = False
    probe = nn.Linear(3, 2)
    probe(model(torch.randn(8, 20))).sum().backward()


def replace_a_layer_by_index():
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 3))
    model.requires_grad_(False)
    model[2] = nn.Linear(32, 3)
    model(torch.randn(8, 20)).sum().backward()


def frozen_inside_a_no_grad_evaluation():
    model = nn.Linear(20, 3)
    trained = nn.Linear(20, 3)
    for p in model.parameters():
        p.requires_grad = False
    reference = model(torch.randn(8, 20))
    loss = (trained(torch.randn(8, 20)) - reference).pow(2).mean()
    loss.backward()


def frozen_copy_kept_for_logging():
    model = nn.Linear(20, 3)
    loss = model(torch.randn(8, 20)).sum()
    model.requires_grad_(False)  # frozen after the forward pass: the graph exists
    loss.backward()


new_head_after_freezing()
freeze_only_the_backbone()
freeze_by_name()
freeze_first_layer_only()
frozen_teacher_trained_student()
freeze_maybe({"freeze": False})
linear_probe(nn.Linear(20, 3))
replace_a_layer_by_index()
frozen_inside_a_no_grad_evaluation()
frozen_copy_kept_for_logging()
