"""Fine-tuning a classifier head on a frozen backbone with gradient accumulation.

Look-alikes that are correct:
* the backbone is frozen with `requires_grad = False`, but the new head trains;
* `zero_grad()` runs only every `ACCUM` micro-batches (gradient accumulation);
* the running loss adds `loss.item()`, not the tensor;
* `argmax`, comparisons and `.numpy()` appear only in the evaluation, under `no_grad`;
* the backbone's features are computed under `no_grad` and only the head sees the graph;
* `nn.Parameter(torch.zeros(...))` for a learnable temperature, scaled afterwards.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
ACCUM, CLASSES = 4, 3

backbone = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
for param in backbone.parameters():
    param.requires_grad = False


class Head(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.fc = nn.Linear(dim, classes)
        self.log_temperature = nn.Parameter(torch.zeros(()))

    def forward(self, features):
        return self.fc(features) / self.log_temperature.exp()


head = Head(32, CLASSES)
optimizer = torch.optim.SGD(head.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=8, gamma=0.5)

inputs = torch.randn(96, 16)
labels = torch.randint(0, CLASSES, (96,))
batches = list(zip(inputs.split(8), labels.split(8)))

for epoch in range(2):
    backbone.eval()
    head.train()
    running = 0.0
    optimizer.zero_grad()
    for i, (x, y) in enumerate(batches):
        with torch.no_grad():
            features = backbone(x)
        loss = F.cross_entropy(head(features), y) / ACCUM
        loss.backward()
        running += loss.item() * ACCUM
        if (i + 1) % ACCUM == 0:
            torch.nn.utils.clip_grad_norm_(head.parameters(), max_norm=1.0)
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()

    head.eval()
    correct = 0
    probabilities = []
    with torch.no_grad():
        for x, y in batches:
            logits = head(backbone(x))
            correct += (logits.argmax(dim=1) == y).sum().item()
            probabilities.append(logits.softmax(dim=1).numpy())
    print(f"epoch {epoch} loss {running / len(batches):.3f} acc {correct / len(inputs):.2f}")
