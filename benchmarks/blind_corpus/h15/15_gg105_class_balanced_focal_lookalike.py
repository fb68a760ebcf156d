"""GG105 look-alike - torch.tensor() built from counts and plain floats only.

Category: GG105 (look-alike, correct code).
A class-balanced focal loss builds its per-class weights with torch.tensor
from label counts (Python ints) and from a list of .item() floats; the
differentiable per-sample losses are combined with torch.stack, so the
graph is intact and the classifier trains.
Modelled on: none found (class-balanced loss idiom)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def effective_number_weights(labels, n_classes, beta=0.99):
    counts = [int((labels == c).sum()) for c in range(n_classes)]
    eff = [(1 - beta ** max(n, 1)) / (1 - beta) for n in counts]
    weights = torch.tensor([1.0 / e for e in eff])
    return weights / weights.sum() * n_classes


class ClassBalancedFocalLoss(nn.Module):
    def __init__(self, class_weights, gamma=2.0):
        super().__init__()
        self.register_buffer("class_weights", class_weights)
        self.gamma = gamma

    def forward(self, logits, target):
        per_sample = []
        logp = F.log_softmax(logits, dim=1)
        for i in range(logits.size(0)):
            lp = logp[i, target[i]]
            per_sample.append(-self.class_weights[target[i]] * (1 - lp.exp()) ** self.gamma * lp)
        return torch.stack(per_sample).mean()


def main():
    torch.manual_seed(0)
    x = torch.randn(40, 10)
    y = torch.cat([torch.zeros(30, dtype=torch.long), torch.randint(1, 3, (10,))])
    model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 3))
    criterion = ClassBalancedFocalLoss(effective_number_weights(y, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    epoch_losses = []
    for epoch in range(3):
        batch_losses = []
        for xb, yb in DataLoader(TensorDataset(x, y), batch_size=10, shuffle=True):
            loss = criterion(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            batch_losses.append(loss.item())
        epoch_losses.append(torch.tensor(batch_losses).mean().item())
    print("epoch losses", [round(v, 4) for v in epoch_losses])
    assert model[0].weight.grad is not None


if __name__ == "__main__":
    main()
    print("OK")
