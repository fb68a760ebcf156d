"""A frozen feature extractor and a teacher run under torch.inference_mode() (GG106).

Their outputs are inference tensors; feeding them to a trainable head or using them as a
distillation target raises "Inference tensors cannot be saved for backward".
"""

import torch
import torch.nn.functional as F
from torch import nn

backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Flatten())
head = nn.Linear(8 * 16 * 16, 10)
teacher = nn.Linear(32, 4)
student = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 4))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(head.parameters(), lr=0.01)
distill_opt = torch.optim.Adam(student.parameters(), lr=1e-3)


def finetune_head(steps):
    for _ in range(steps):
        images = torch.randn(4, 3, 16, 16)
        labels = torch.randint(0, 10, (4,))
        with torch.inference_mode():
            feats = backbone(images)
        logits = head(feats)  # expect: GG106
        loss = criterion(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@torch.inference_mode()
def teacher_logits(x):
    return teacher(x)


def distill(steps):
    for _ in range(steps):
        x = torch.randn(16, 32)
        targets = teacher_logits(x)
        loss = F.mse_loss(student(x), targets)  # expect: GG106
        distill_opt.zero_grad()
        loss.backward()
        distill_opt.step()


def weighted_features():
    weights = torch.ones(8 * 16 * 16, requires_grad=True)
    with torch.inference_mode():
        feats = backbone(torch.randn(2, 3, 16, 16))
    scaled = feats * weights  # expect: GG106
    scaled.sum().backward()


if __name__ == "__main__":
    finetune_head(2)
    distill(2)
    weighted_features()
