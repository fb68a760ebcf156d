"""Category GG110 look-alike -- correct code.
Knowledge distillation with label smoothing: `F.softmax(teacher_logits / T)` is
passed to F.cross_entropy as the *target* (probability targets are supported), while
the *input* is always the student's raw logits.  The model also has a
`predict_proba()` method that applies softmax, used only for reporting.  No softmax
output is ever fed to cross_entropy as the input.
Modelled on: https://shaktiwadekar.medium.com/why-softmax-not-used-when-cross-entropy-loss-is-used-as-loss-function-during-neural-network-d77abd708715
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"in": 8, "classes": 5, "T": 3.0, "alpha": 0.5, "smoothing": 0.1, "steps": 40, "bs": 32}


class Net(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(CFG["in"], hidden), nn.ReLU(), nn.Linear(hidden, CFG["classes"]))

    def forward(self, x):
        return self.body(x)

    @torch.no_grad()
    def predict_proba(self, x):
        return F.softmax(self.forward(x), dim=1)


def distill_loss(student_logits, teacher_logits, labels):
    T = CFG["T"]
    soft_targets = F.softmax(teacher_logits / T, dim=1)
    kd = F.cross_entropy(student_logits / T, soft_targets) * T * T
    hard = F.cross_entropy(student_logits, labels, label_smoothing=CFG["smoothing"])
    return CFG["alpha"] * kd + (1 - CFG["alpha"]) * hard


def main():
    torch.manual_seed(0)
    x = torch.randn(256, CFG["in"])
    y = (x[:, 0] * 2 + x[:, 1]).long().clamp(-2, 2) + 2
    teacher, student = Net(64), Net(16)
    t_opt = torch.optim.Adam(teacher.parameters(), lr=1e-2)
    for _ in range(CFG["steps"]):
        t_opt.zero_grad()
        F.cross_entropy(teacher(x), y).backward()
        t_opt.step()
    teacher.eval()
    s_opt = torch.optim.Adam(student.parameters(), lr=1e-2)
    first = None
    for step in range(CFG["steps"]):
        idx = torch.randint(0, 256, (CFG["bs"],))
        with torch.no_grad():
            t_logits = teacher(x[idx])
        loss = distill_loss(student(x[idx]), t_logits, y[idx])
        s_opt.zero_grad()
        loss.backward()
        s_opt.step()
        first = loss.item() if first is None else first
    probs = student.predict_proba(x[:4])
    print(f"distill loss {first:.3f} -> {loss.item():.3f}; sample probs {probs[0].tolist()}")
    assert loss.item() < first


if __name__ == "__main__":
    main()
    print("OK")
