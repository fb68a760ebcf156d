"""Knowledge distillation with the teacher's outputs computed once, up front, in a helper
that runs under `torch.inference_mode()` and returns the list of targets; the student's loop
then uses each cached target in `F.mse_loss`, which saves it for backward: "Inference tensors
cannot be saved for backward". The fix caches under `torch.no_grad()` (or clones).

Sources (rewritten in our own words, structure kept):
* https://github.com/huggingface/diffusers/issues/1658 - tensors cached in inference mode
  reused by the next training step.
* https://github.com/sgl-project/sglang-omni/pull/1720 - a later operation that saves an
  inference-mode output for backward fails.
"""

import torch
import torch.nn.functional as F
from torch import nn


def cache_teacher_outputs(teacher, batches):
    cached = []
    with torch.inference_mode():
        for x in batches:
            cached.append(teacher(x))
    return cached


def cache_teacher_outputs_fixed(teacher, batches):
    cached = []
    with torch.no_grad():
        for x in batches:
            cached.append(teacher(x))
    return cached


def distill(student, teacher, batches, epochs=1):
    optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
    targets = cache_teacher_outputs(teacher, batches)
    for _ in range(epochs):
        for x, target in zip(batches, targets):
            loss = F.mse_loss(student(x), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


teacher = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
student = nn.Linear(5, 3)
batches = [torch.randn(4, 5) for _ in range(2)]
targets = cache_teacher_outputs(teacher, batches)
opt = torch.optim.SGD(student.parameters(), lr=0.1)
try:
    loss = F.mse_loss(student(batches[0]), targets[0])  # missed: GG106
    loss.backward()
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "Inference tensors cannot be saved for backward" in str(error)
fixed_targets = cache_teacher_outputs_fixed(teacher, batches)
F.mse_loss(student(batches[0]), fixed_targets[0]).backward()
