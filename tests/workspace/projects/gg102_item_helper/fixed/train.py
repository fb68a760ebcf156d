"""Entry point: builds the model and runs trainer.loop.fit."""
import torch
from torch import nn

from trainer.loop import fit

torch.manual_seed(0)
model = nn.Linear(3, 1)
fit(model, torch.randn(16, 3), torch.randn(16, 1))
print("param-grad-norm", sum(float(p.grad.norm()) for p in model.parameters()))
