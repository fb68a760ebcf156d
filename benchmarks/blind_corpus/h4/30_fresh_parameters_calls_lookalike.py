"""GG610 look-alike - parameters() used several times, each time a fresh generator.

model.parameters() is called anew for the optimizer, for counting, and for clipping;
named_parameters() is consumed by a single loop; a stored list(...) is reused freely.
Each iteration therefore sees every parameter.
"""
import torch
import torch.nn as nn


class GRUClassifier(nn.Module):
    def __init__(self, n_in=5, hidden=16, n_classes=3):
        super().__init__()
        self.gru = nn.GRU(n_in, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, n_classes)

    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])


def count_params(model):
    return sum(p.numel() for p in model.parameters())


def main():
    torch.manual_seed(0)
    model = GRUClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    n = count_params(model)
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if name.endswith("bias") else decay).append(p)
    all_params = decay + no_decay
    assert sum(p.numel() for p in all_params) == n

    x = torch.randn(32, 7, 5)
    y = torch.randint(0, 3, (32,))
    norms = []
    for step in range(20):
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        norms.append(float(nn.utils.clip_grad_norm_(model.parameters(), 0.5)))
        clipped = torch.sqrt(sum(p.grad.pow(2).sum() for p in all_params)).item()
        assert clipped <= 0.5 + 1e-4
        optimizer.step()
    assert all(v > 0 for v in norms)
    print(f"{n} params, loss {loss.item():.3f}, first norm {norms[0]:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
