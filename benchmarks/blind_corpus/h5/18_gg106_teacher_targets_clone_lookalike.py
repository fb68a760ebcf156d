"""Category GG106 look-alike -- correct code.
Student/teacher distillation: the frozen teacher runs under torch.inference_mode()
and validation is decorated with @torch.inference_mode().  The teacher's soft targets
are `.clone()`d outside inference mode (a clone made there is a normal tensor), and
the hard pseudo-labels go through `.tolist()` into a fresh tensor, so no inference
tensor is ever saved by autograd.  Training runs without error.
Modelled on: https://github.com/pytorch/pytorch/pull/161164 (the clone workaround the
error message recommends)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"d": 12, "classes": 4, "bs": 16, "steps": 4, "T": 2.0, "alpha": 0.7}


def mlp(d, h, c):
    return nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, c))


class Distiller:
    def __init__(self, teacher, student, cfg):
        self.teacher, self.student, self.cfg = teacher.eval(), student, cfg
        self.opt = torch.optim.Adam(student.parameters(), lr=1e-3)

    def teacher_targets(self, x):
        with torch.inference_mode():
            logits = self.teacher(x)
            soft = F.softmax(logits / self.cfg["T"], dim=-1)
            hard = logits.argmax(-1)
        return soft.clone(), torch.tensor(hard.tolist())

    def train_step(self, x):
        soft, hard = self.teacher_targets(x)
        out = self.student(x)
        kd = F.kl_div(F.log_softmax(out / self.cfg["T"], -1), soft, reduction="batchmean")
        ce = F.cross_entropy(out, hard)
        loss = self.cfg["alpha"] * kd * self.cfg["T"] ** 2 + (1 - self.cfg["alpha"]) * ce
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    @torch.inference_mode()
    def validate(self, x):
        agree = (self.student(x).argmax(-1) == self.teacher(x).argmax(-1)).float().mean()
        return agree.item()


def main():
    torch.manual_seed(0)
    c = CFG
    teacher, student = mlp(c["d"], 64, c["classes"]), mlp(c["d"], 16, c["classes"])
    teacher.requires_grad_(False)
    d = Distiller(teacher, student, c)
    x_val = torch.randn(32, c["d"])
    for step in range(c["steps"]):
        loss = d.train_step(torch.randn(c["bs"], c["d"]))
        print(f"step {step}: loss {loss:.4f} agreement {d.validate(x_val):.2f}")
    assert student[0].weight.grad is not None


if __name__ == "__main__":
    main()
    print("OK")
