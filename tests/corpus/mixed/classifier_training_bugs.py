"""A small classifier with a feature hook and an evaluation pass; four planted mistakes.

* `zero_grad()` between `backward()` and `step()` throws the gradients away: nothing trains;
* `torch.no_grad()` written as a statement does nothing, so evaluation records a graph;
* `model.forward(x)` skips the model's forward hook that collects its outputs;
* `.numpy()` on the evaluation logits, which (see above) still require grad, raises.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
features = []  # every output of the model, for activation statistics
model.register_forward_hook(lambda module, inputs, output: features.append(output.detach()))

x_train, y_train = torch.randn(128, 10), torch.randint(0, 4, (128,))
x_val, y_val = torch.randn(32, 10), torch.randint(0, 4, (32,))

for epoch in range(3):
    model.train()
    for xb, yb in zip(x_train.split(16), y_train.split(16)):
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.zero_grad()  # expect: GG605
        optimizer.step()

    model.eval()
    torch.no_grad()  # expect: GG107
    logits = model.forward(x_val)  # expect: GG603
    predictions = logits.numpy().argmax(axis=1)  # expect: GG502
    accuracy = (predictions == y_val.numpy()).mean()
    print(f"epoch {epoch}: val accuracy {accuracy:.2f}, {len(features)} feature batches")
