"""GG101 look-alike - backward() inside a no_grad region that re-enables grad.

Category: GG101 (look-alike, correct code).
Test-time entropy minimisation (TENT-style): the evaluation loop runs under
torch.no_grad(), and pseudo-labels come from a @torch.no_grad() helper, but
the adaptation step re-enables autograd with torch.enable_grad() before it
builds the entropy loss, so backward() is legal and the BatchNorm affine
parameters really move.  The pseudo-labels returned by the no_grad helper
are only used as targets, never backpropagated.
Modelled on: none found (pattern from test-time adaptation code)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class SmallCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def collect_bn_params(model):
    params = []
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.requires_grad_(True)
            params += [m.weight, m.bias]
    return params


@torch.no_grad()
def pseudo_labels(model, x):
    return model(x).argmax(dim=1)


def entropy(logits):
    return -(logits.softmax(1) * logits.log_softmax(1)).sum(1).mean()


def adapt_and_evaluate(model, loader, optimizer):
    model.train()  # BN uses batch statistics during adaptation
    correct, seen, agree = 0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            targets = pseudo_labels(model, x)
            with torch.enable_grad():
                logits = model(x)
                loss = entropy(logits) + 0.1 * F.cross_entropy(logits, targets)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            preds = model(x).argmax(1)
            correct += (preds == y).sum().item()
            agree += (preds == targets).sum().item()
            seen += y.numel()
    return correct / seen, agree / seen


def main():
    torch.manual_seed(0)
    model = SmallCNN()
    model.requires_grad_(False)
    params = collect_bn_params(model)
    before = [p.detach().clone() for p in params]
    optimizer = torch.optim.SGD(params, lr=0.05, momentum=0.9)
    data = TensorDataset(torch.randn(32, 1, 12, 12), torch.randint(0, 4, (32,)))
    acc, agree = adapt_and_evaluate(model, DataLoader(data, batch_size=8), optimizer)
    moved = any(not torch.equal(b, p) for b, p in zip(before, params))
    assert moved, "BN parameters should have been adapted"
    print(f"acc {acc:.2f} agreement {agree:.2f}")


if __name__ == "__main__":
    main()
    print("OK")
