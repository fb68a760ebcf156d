"""GG402 look-alike - integer tensors next to requires_grad, but never asked to require grad.

A knowledge-distillation loop with a learnable temperature.  Integer tensors
are everywhere (class indices, the per-class counts built with `torch.bincount`,
the long `step` counter kept in a buffer) and a learnable scalar is created with
`torch.tensor(..., requires_grad=True)` right beside them.  Every tensor that
requires grad is floating point (the temperature is written `4.0` and given
an explicit float dtype); the integer ones are only used for indexing and
counting.

Modelled on: https://github.com/siliconflow/onediff/pull/360 (correct counterpart)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = dict(classes=5, dim=12, batch=10, steps=3, lr=5e-3, alpha=0.7)


class Student(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 24), nn.ReLU(), nn.Linear(24, classes))
        self.register_buffer("step", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        return self.net(x)


def kd_loss(student_logits, teacher_logits, labels, temperature, alpha):
    t = temperature.clamp(min=0.5)
    soft = F.kl_div(F.log_softmax(student_logits / t, 1), F.softmax(teacher_logits / t, 1),
                    reduction="batchmean") * t * t
    hard = F.cross_entropy(student_logits, labels)
    return alpha * soft + (1 - alpha) * hard


def main():
    torch.manual_seed(0)
    teacher = nn.Sequential(nn.Linear(CFG["dim"], 32), nn.ReLU(), nn.Linear(32, CFG["classes"])).eval()
    student = Student(CFG["dim"], CFG["classes"])
    temperature = torch.tensor(4.0, dtype=torch.float32, requires_grad=True)
    optimizer = torch.optim.Adam(list(student.parameters()) + [temperature], lr=CFG["lr"])
    class_counts = torch.zeros(CFG["classes"], dtype=torch.long)
    for _ in range(CFG["steps"]):
        x = torch.randn(CFG["batch"], CFG["dim"])
        labels = torch.randint(0, CFG["classes"], (CFG["batch"],))
        class_counts += torch.bincount(labels, minlength=CFG["classes"])
        with torch.no_grad():
            t_logits = teacher(x)
        loss = kd_loss(student(x), t_logits, labels, temperature, CFG["alpha"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        student.step += 1
        print(f"step {int(student.step)}: loss={loss.item():.4f} T={temperature.item():.4f}")
    print("label histogram:", class_counts.tolist())


if __name__ == "__main__":
    main()
    print("OK")
