"""GG109 look-alike - torch.tensor(..., requires_grad=True) for a learnable scalar.

Correct code. Post-hoc temperature scaling creates `log_t = torch.tensor(0.0,
requires_grad=True)` - a learnable leaf handed to the optimizer - not a loss. The NLL is
computed from logits divided by exp(log_t), so backward() reaches log_t and it changes.
A running total starting from torch.zeros(()) accumulates loss terms that all carry
history.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 24), nn.ReLU(), nn.Linear(24, 4))

    def forward(self, x):
        return self.net(x)


@torch.no_grad()
def collect_logits(model, x):
    model.eval()
    return model(x)


class TemperatureScaler:
    def __init__(self, lr=0.05):
        self.log_t = torch.tensor(0.0, requires_grad=True)
        self.optimizer = torch.optim.Adam([self.log_t], lr=lr)

    def nll(self, logits, labels):
        return F.cross_entropy(logits / self.log_t.exp(), labels)

    def fit(self, logits, labels, steps=20, chunks=4):
        for step in range(steps):
            total = torch.zeros(())
            for lg, lb in zip(logits.chunk(chunks), labels.chunk(chunks)):
                total = total + self.nll(lg, lb)
            loss = total / chunks
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if step % 10 == 0:
                print(f"step {step}: nll={loss.item():.4f} T={self.log_t.exp().item():.3f}")
        return self.log_t.exp().item()


def main():
    torch.manual_seed(0)
    model = Classifier()
    x, y = torch.randn(64, 6), torch.randint(0, 4, (64,))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(20):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    logits = collect_logits(model, x)
    scaler = TemperatureScaler()
    temperature = scaler.fit(logits, y)
    assert scaler.log_t.grad is not None and temperature != 1.0
    print(f"fitted temperature: {temperature:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
