"""GG110 look-alike - softmax next to cross_entropy, but on the target side.

Knowledge distillation: the student's raw logits are the *input* of
F.cross_entropy, and the teacher's softmax probabilities are passed as the soft
*target* (allowed since torch 1.10). The student's own softmax is only used to
report confidence. Nothing is wrong here.

Modelled on: https://github.com/illiterate/BertClassifier/issues/2
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

T = 3.0
N_CLASSES = 5


def mlp(width):
    return nn.Sequential(nn.Linear(16, width), nn.ReLU(), nn.Linear(width, N_CLASSES))


def distill_step(student, teacher, opt, x, y, alpha=0.7):
    with torch.no_grad():
        soft_targets = F.softmax(teacher(x) / T, dim=-1)
    logits = student(x)
    kd = F.cross_entropy(logits / T, soft_targets) * T * T
    hard = F.cross_entropy(logits, y)
    loss = alpha * kd + (1 - alpha) * hard
    opt.zero_grad()
    loss.backward()
    opt.step()
    confidence = F.softmax(logits.detach(), dim=-1).max(-1).values.mean().item()
    return loss.item(), confidence


def main():
    torch.manual_seed(0)
    teacher, student = mlp(64).eval(), mlp(8)
    opt = torch.optim.Adam(student.parameters(), lr=1e-2)
    x = torch.randn(64, 16)
    y = torch.randint(0, N_CLASSES, (64,))
    losses = []
    for step in range(8):
        loss, conf = distill_step(student, teacher, opt, x, y)
        losses.append(loss)
        if step % 4 == 0:
            print(f"step {step}: loss {loss:.4f} confidence {conf:.3f}")
    assert losses[-1] < losses[0]


if __name__ == "__main__":
    main()
    print("OK")
