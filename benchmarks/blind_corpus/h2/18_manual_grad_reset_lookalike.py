"""GG601 look-alike: gradients are cleared every step, just not with optimizer.zero_grad().

Category GG601 (look-alike, no bug). The training loop has no ``optimizer.zero_grad()``
call in it. Gradients are still reset at every step: ``backward_and_step`` clears them
itself after stepping, by setting each parameter's ``.grad`` to None (what zero_grad does
by default). The loop also uses a GradScaler, which is enabled on CPU. We check at the
end that no stale gradient is left over.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class TabularNet(nn.Module):
    def __init__(self, d_in=10, n_classes=2):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, 32), nn.BatchNorm1d(32), nn.ReLU(),
            nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def backward_and_step(loss, model, optimizer, scaler, max_norm=1.0):
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    for p in model.parameters():
        p.grad = None
    return grad_norm.item()


def train(model, loader, optimizer, criterion, scaler, epochs=2):
    for epoch in range(epochs):
        model.train()
        norms, losses = [], []
        for i, (x, y) in enumerate(loader):
            loss = criterion(model(x), y)
            norms.append(backward_and_step(loss, model, optimizer, scaler))
            losses.append(loss.item())
        print(f"epoch {epoch}: loss {sum(losses) / len(losses):.3f} grad-norm {max(norms):.3f}")


def main():
    torch.manual_seed(16)
    x = torch.randn(64, 10)
    y = (x[:, :3].sum(1) > 0).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    model = TabularNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    train(model, loader, optimizer, nn.CrossEntropyLoss(), torch.amp.GradScaler("cpu"))
    assert all(p.grad is None for p in model.parameters())


if __name__ == "__main__":
    main()
    print("OK")
