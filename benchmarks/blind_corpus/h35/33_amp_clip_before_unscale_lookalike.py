"""Student/teacher training: AMP for the student, plain FP32 for a critic.

Modelled on: https://github.com/Lightning-AI/pytorch-lightning/issues/9599 (counterpart)

Look-alike: the loop clips gradients and calls optimizer.step() directly,
but only for the critic, whose loss is never scaled by the GradScaler.
The student's gradients are unscaled before clipping and stepped through
scaler.step().
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp(d_in, d_out):
    return nn.Sequential(nn.Linear(d_in, 32), nn.ReLU(), nn.Linear(32, d_out))


class Loop:
    def __init__(self):
        self.student = mlp(8, 1)
        self.critic = mlp(9, 1)
        self.s_opt = torch.optim.SGD(self.student.parameters(), lr=1e-2)
        self.c_opt = torch.optim.SGD(self.critic.parameters(), lr=1e-2)
        self.scaler = torch.amp.GradScaler("cpu")

    def student_step(self, x, y):
        self.s_opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            pred = self.student(x)
        loss = F.mse_loss(pred.float(), y)
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.s_opt)
        torch.nn.utils.clip_grad_norm_(self.student.parameters(), 1.0)
        self.scaler.step(self.s_opt)
        self.scaler.update()
        return pred.detach().float()

    def critic_step(self, x, pred, y):
        self.c_opt.zero_grad()
        err = self.critic(torch.cat([x, pred], 1))
        loss = F.mse_loss(err, (pred - y).abs())
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.critic.parameters(), 1.0)
        self.c_opt.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    loop = Loop()
    before = [p.detach().clone() for p in loop.student.parameters()]
    for _ in range(3):
        x = torch.randn(16, 8)
        y = x.sum(1, keepdim=True)
        loop.critic_step(x, loop.student_step(x, y), y)
    assert any(not torch.equal(a, b) for a, b in zip(before, loop.student.parameters()))
    print("OK")
