"""Mixed-precision training loop split into Lightning-like hooks.

Modelled on: https://github.com/Lightning-AI/pytorch-lightning/issues/9599

With native AMP the loop clipped gradients right after backward(), while
scaler.unscale_() only ran later in the pre-optimizer-step hook. The clip
threshold was therefore compared with gradients still multiplied by the
loss scale (65536 by default), so every step was clipped to
max_norm / scale and the loss converged extremely slowly.

Fixed version: gradients are unscaled before they are clipped.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self, d_in=8, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


class NativeAMPLoop:
    def __init__(self, model, lr=1e-2, gradient_clip_val=1.0):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16)
        self.gradient_clip_val = gradient_clip_val
        self.applied_norms = []

    def backward(self, loss):
        self.scaler.scale(loss).backward()

    def clip_gradients(self):
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.gradient_clip_val)

    def optimizer_step(self):
        norm = torch.sqrt(sum((p.grad ** 2).sum() for p in self.model.parameters()))
        self.applied_norms.append(norm.item())
        self.scaler.step(self.optimizer)
        self.scaler.update()

    def run_batch(self, x, y):
        self.optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            pred = self.model(x)
        loss = F.mse_loss(pred.float(), y)
        self.backward(loss)
        self.clip_gradients()
        self.optimizer_step()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    loop = NativeAMPLoop(Regressor())
    g = torch.Generator().manual_seed(0)
    for _ in range(3):
        x = torch.randn(16, 8, generator=g)
        loop.run_batch(x, 50 * x.sum(1, keepdim=True))
    if max(loop.applied_norms) < 0.01 * loop.gradient_clip_val:
        print(f"BUGGY: clipped the scaled gradients; applied grad norm {max(loop.applied_norms):.2e}")
    else:
        print("FIXED: ok")
