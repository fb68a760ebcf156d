"""Trains the detector; the with-logits loss applies the sigmoid itself."""
import torch
from torch import nn

from nets.detector import Detector

torch.manual_seed(0)
x = torch.randn(512, 6)
y = (x[:, 0] + x[:, 1] > 0).float().unsqueeze(1)
model = Detector()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
criterion = nn.BCEWithLogitsLoss()
for step in range(200):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
print("final-loss", float(loss))
print("converges-well", float(loss) < 0.5)
print("param-grad-norm", sum(float(p.grad.norm()) for p in model.parameters()))
