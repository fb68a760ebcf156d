"""GG602 look-alike - activation calls whose return value is unused, but they act in place.

`ConvEncoder.forward` calls `self.act1(h)` and `F.relu_(h)` as bare statements.
That looks like a module / functional op whose result is thrown away, but
`self.act1` is `nn.ReLU(inplace=True)` and `F.relu_` is the in-place variant, so
both rectify `h` itself.  The conv outputs they overwrite are not needed by the
conv backward, so autograd is fine.
Correct: the activations are applied (hidden maps are non-negative), every
parameter gets a gradient and the loss goes down.

Modelled on: https://www.joeltok.com/posts/2020-04-pytorch-f-relu-to-nn-relu/
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SETTINGS = dict(channels=(1, 8, 16), num_classes=5, epochs=3, lr=0.01, batch_size=16)


class ConvEncoder(nn.Module):
    def __init__(self, channels, num_classes):
        super().__init__()
        c0, c1, c2 = channels
        self.conv1 = nn.Conv2d(c0, c1, 3, padding=1)
        self.act1 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(c1, c2, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(c2 * 4 * 4, num_classes)
        self.last_hidden = None

    def forward(self, x):
        h = self.conv1(x)
        self.act1(h)  # in-place ReLU: rectifies h itself
        h = self.pool(h)
        h = self.conv2(h)
        F.relu_(h)  # in-place functional variant
        self.last_hidden = h.detach()
        h = self.pool(h)
        return self.fc(torch.flatten(h, 1))


def evaluate(model, loader, criterion):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            total += criterion(model(x), y).item() * x.size(0)
            n += x.size(0)
    return total / n


def train(model, loader, optimizer, criterion):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    cfg = SETTINGS
    x = torch.randn(96, 1, 16, 16)
    y = torch.randint(0, cfg["num_classes"], (96,))
    x[torch.arange(96), 0, y, y] += 3.0  # make the classes learnable
    loader = DataLoader(TensorDataset(x, y), batch_size=cfg["batch_size"], shuffle=True)
    model = ConvEncoder(cfg["channels"], cfg["num_classes"])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    criterion = nn.CrossEntropyLoss()
    start = evaluate(model, loader, criterion)
    for epoch in range(cfg["epochs"]):
        last = train(model, loader, optimizer, criterion)
        print(f"epoch {epoch}: last batch loss {last:.4f}")
    end = evaluate(model, loader, criterion)
    return model, start, end


def check_training():
    torch.manual_seed(0)
    model, start, end = main()
    assert all(p.grad is not None for p in model.parameters()), "some parameter got no gradient"
    assert model.last_hidden.min() >= 0, "activation was not applied"
    assert end < start, f"loss did not go down ({start:.3f} -> {end:.3f})"


if __name__ == "__main__":
    check_training()
    print("OK")
