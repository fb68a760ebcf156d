"""Fine-tunes the classifier for a 3-class task with a new head."""
import torch
import torch.nn.functional as F
from torch import nn

from models.classifier import Classifier

torch.manual_seed(0)
model = Classifier()
# the optimizer is built once the new head is in place
model.head = nn.Linear(16, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
before = model.head.weight.detach().clone()
x, labels = torch.randn(32, 8), torch.randint(0, 3, (32,))
for step in range(3):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), labels)
    loss.backward()
    optimizer.step()
print("weights-moved", not torch.equal(before, model.head.weight))
print("param-grad-norm", sum(float(p.grad.norm()) for p in model.parameters()))
