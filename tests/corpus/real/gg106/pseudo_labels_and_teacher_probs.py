"""Semi-supervised and distillation steps that make their targets under
`torch.inference_mode()` (a "free speed-up" over `torch.no_grad()`): the pseudo-labels are
`argmax` of the teacher's logits and go to `F.cross_entropy`, the soft targets are the
teacher's probabilities and go to `nn.KLDivLoss`. Both losses save their target for the
student's gradient, and an inference tensor cannot be saved: "Inference tensors cannot be
saved for backward". The fixed twins make the targets under `torch.no_grad()` or clone
them; the look-alikes use losses that save no target (`F.l1_loss`) or nothing that needs a
gradient.

Sources (rewritten in our own words, structure kept):
* https://github.com/charlesCXK/TorchSemiSeg/issues/72 - pseudo-labels made by the other
  network without gradients, then a cross-entropy against them.
* https://github.com/yoshitomo-matsubara/torchdistill/pull/199 - a distillation library
  switching its teacher's forward from `no_grad` to `inference_mode`.
* https://github.com/pytorch/pytorch/pull/161164 - the error and the `no_grad` advice.
"""

import torch
import torch.nn.functional as F
from torch import nn

teacher = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4))
student = nn.Linear(6, 4)
optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
kl = nn.KLDivLoss(reduction="batchmean")
unlabeled = torch.randn(8, 6)

# Pseudo-labelling: the labels are inference tensors.
with torch.inference_mode():
    pseudo = teacher(unlabeled).argmax(dim=1)
try:
    loss = F.cross_entropy(student(unlabeled), pseudo)  # expect: GG106
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "Inference tensors cannot be saved for backward" in str(error)
loss = F.cross_entropy(student(unlabeled), pseudo.clone())
optimizer.zero_grad()
loss.backward()
optimizer.step()

# Distillation: the soft targets are inference tensors.
with torch.inference_mode():
    soft = torch.softmax(teacher(unlabeled) / 2.0, dim=1)
try:
    loss = kl(F.log_softmax(student(unlabeled) / 2.0, dim=1), soft)  # expect: GG106
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "Inference tensors cannot be saved for backward" in str(error)
with torch.no_grad():
    soft_fixed = torch.softmax(teacher(unlabeled) / 2.0, dim=1)
loss = kl(F.log_softmax(student(unlabeled) / 2.0, dim=1), soft_fixed)
loss.backward()

# Confidence mask from a comparison, multiplied into the per-sample loss.
with torch.inference_mode():
    confident = (torch.softmax(teacher(unlabeled), dim=1).max(dim=1).values > 0.3).float()
per_sample = F.cross_entropy(student(unlabeled), pseudo.clone(), reduction="none")
try:
    masked = (per_sample * confident).mean()  # expect: GG106
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "Inference tensors cannot be saved for backward" in str(error)
masked = (per_sample * confident.clone()).mean()
masked.backward()

# Look-alikes: an L1 loss saves neither operand; a target used where nothing needs it.
l1 = F.l1_loss(student(unlabeled), soft)
l1.backward()
accuracy = (student(unlabeled).argmax(dim=1) == pseudo).float().mean()
print(accuracy.item())
