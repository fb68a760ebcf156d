"""Teacher probabilities made in inference mode, flattened into a KL target (GG106).

The teacher of a token tagger runs under `torch.inference_mode()`, so its softmax is an
inference tensor. softmax always allocates a contiguous result, so `reshape(-1, classes)`
of it outside the block is a view, and a view of an inference tensor is one too. `F.kl_div`
keeps its target for the gradient of its input, the student's log-probabilities: "Inference
tensors cannot be saved for backward" (checked with torch 2.13.0 below).

Look-alikes: the same probabilities transposed before the reshape (a reshape of a tensor
that is not contiguous copies it, outside inference mode: a normal tensor), and cloned
before the reshape (a clone made outside inference mode is normal).

Modelled on yoshitomo-matsubara/torchdistill#199 (a distillation library running its
teacher under inference mode instead of no_grad).
"""

import torch
import torch.nn.functional as F
from torch import nn

CLASSES = 5


def tagger(width):
    return nn.Sequential(nn.Embedding(30, width), nn.Tanh(), nn.Linear(width, CLASSES))


def distill_step(student, teacher, optimizer, tokens):
    with torch.inference_mode():
        probs = teacher(tokens).softmax(dim=-1)
    soft = probs.reshape(-1, CLASSES)
    log_probs = F.log_softmax(student(tokens), dim=-1).reshape(-1, CLASSES)
    loss = F.kl_div(log_probs, soft, reduction="batchmean")  # expect: GG106
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def distill_step_time_major(student, teacher, optimizer, tokens):
    with torch.inference_mode():
        probs = teacher(tokens).softmax(dim=-1)
    soft = probs.transpose(0, 1).reshape(-1, CLASSES)
    log_probs = F.log_softmax(student(tokens), dim=-1).transpose(0, 1).reshape(-1, CLASSES)
    loss = F.kl_div(log_probs, soft, reduction="batchmean")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def distill_step_cloned(student, teacher, optimizer, tokens):
    with torch.inference_mode():
        probs = teacher(tokens).softmax(dim=-1)
    soft = probs.clone().reshape(-1, CLASSES)
    log_probs = F.log_softmax(student(tokens), dim=-1).reshape(-1, CLASSES)
    loss = F.kl_div(log_probs, soft, reduction="batchmean")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def main():
    torch.manual_seed(0)
    teacher, tokens = tagger(16), torch.randint(0, 30, (4, 7))
    student = tagger(8)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
    try:
        distill_step(student, teacher, optimizer, tokens)
    except RuntimeError as error:
        assert "Inference tensors cannot be saved for backward" in str(error)
    else:
        raise AssertionError("expected the inference target to be refused")
    distill_step_time_major(student, teacher, optimizer, tokens)
    distill_step_cloned(student, teacher, optimizer, tokens)
    print("ok")


if __name__ == "__main__":
    main()
