"""Trains the autoencoder on the mean of the per-element error."""
import os

import torch
import torch.nn.functional as F

from models.autoencoder import AutoEncoder

torch.manual_seed(0)
data = torch.utils.data.TensorDataset(torch.randn(128, 20))
# The batch size is the user's to choose: in this file alone the rows' shape is not known.
loader = torch.utils.data.DataLoader(data, batch_size=int(os.environ.get("BATCH", "32")))
model = AutoEncoder()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(5):
    for (rows,) in loader:
        optimizer.zero_grad()
        error = F.mse_loss(model(rows), rows, reduction="none").mean()
        error.backward()
        optimizer.step()
print("final-loss", float(error.mean()))
print("param-grad-norm", sum(float(p.grad.norm()) for p in model.parameters()))
