"""GG110 look-alike - softmax output passed to cross_entropy, but as the *target*.

Knowledge distillation: the teacher's temperature-softened softmax is a probability
distribution used as the soft target of F.cross_entropy (supported since torch 1.10).
The student's input to the loss is still raw logits, so there is no double softmax.
The student probabilities computed for logging are never fed to the loss.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp(dim, hidden, n_classes):
    return nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, n_classes))


def distill_loss(student_logits, teacher_logits, labels, T=2.0, alpha=0.7):
    soft_targets = F.softmax(teacher_logits / T, dim=-1)
    kd = F.cross_entropy(student_logits / T, soft_targets) * (T * T)
    hard = F.cross_entropy(student_logits, labels)
    return alpha * kd + (1 - alpha) * hard, {"kd": kd.item(), "hard": hard.item()}


def log_metrics(step, parts, student_logits, labels):
    probs = F.softmax(student_logits, dim=-1)
    conf = probs.max(dim=-1).values.mean().item()
    acc = (probs.argmax(-1) == labels).float().mean().item()
    if step % 40 == 0:
        print(f"step {step:3d} kd={parts['kd']:.3f} hard={parts['hard']:.3f} conf={conf:.2f} acc={acc:.2f}")
    return acc


def main():
    torch.manual_seed(0)
    dim, n_classes = 10, 5
    x = torch.randn(128, dim)
    teacher = mlp(dim, 64, n_classes)
    with torch.no_grad():
        labels = teacher(x).argmax(-1)
    teacher.eval()
    student = mlp(dim, 16, n_classes)
    opt = torch.optim.Adam(student.parameters(), lr=1e-2)
    first = None
    for step in range(160):
        with torch.no_grad():
            t_logits = teacher(x)
        s_logits = student(x)
        loss, parts = distill_loss(s_logits, t_logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        acc = log_metrics(step, parts, s_logits.detach(), labels)
        first = loss.item() if first is None else first
    # the KD term contains the teacher's entropy, so only the decrease matters here
    assert loss.item() < first and acc > 0.8, (first, loss.item(), acc)


if __name__ == "__main__":
    main()
    print("OK")
