"""Fits a curve, then samples the fitted function on a grid."""
import torch
import torch.nn.functional as F

from models import MLP, make_optimizer

torch.manual_seed(0)
model = MLP()
optimizer = make_optimizer(model)
x = torch.linspace(-2, 2, 64).unsqueeze(1)
y = torch.sin(x)
for step in range(20):
    optimizer.zero_grad()
    F.mse_loss(model(x), y).backward()
    optimizer.step()
grid = torch.linspace(-2, 2, 5).unsqueeze(1)
curve = model(grid).numpy()
print("curve", curve.ravel().round(2).tolist())
print("param-grad-norm", sum(float(p.grad.norm()) for p in model.parameters()))
