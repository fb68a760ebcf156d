"""GG601 (fixed): regression training loop clears the gradients before each backward().

Category GG601. ``optimizer.zero_grad()`` now runs at the top of every iteration, so each
step uses only its own batch's gradient. In the buggy version the gradients piled up and
step 2's gradient was step 1's plus batch 2's; here we assert it equals the fresh
gradient of batch 2 alone.
"""
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_model(d_in=6):
    return nn.Sequential(nn.Linear(d_in, 16), nn.Tanh(), nn.Linear(16, 1))


def train(model, loader, optimizer, criterion, epochs=1, on_after_backward=None):
    model.train()
    for epoch in range(epochs):
        total = 0.0
        for step, (x, y) in enumerate(loader):  # fixed: GG601
            optimizer.zero_grad()
            pred = model(x).squeeze(-1)
            loss = criterion(pred, y)
            loss.backward()
            if on_after_backward is not None:
                on_after_backward(model, x, y)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=100.0)
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: mse {total / len(loader):.4f}")


def fresh_gradients(model, state, x, y, criterion):
    probe = copy.deepcopy(model)
    probe.load_state_dict(state)
    probe.zero_grad(set_to_none=True)
    criterion(probe(x).squeeze(-1), y).backward()
    return [p.grad.clone() for p in probe.parameters()]


def main():
    torch.manual_seed(14)
    x = torch.randn(48, 6)
    y = x @ torch.randn(6) + 0.05 * torch.randn(48)
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=False)
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.MSELoss()
    seen = []

    def record(m, xb, yb):
        seen.append({
            "state": copy.deepcopy(m.state_dict()),
            "grads": [p.grad.clone() for p in m.parameters()],
            "batch": (xb, yb),
        })

    train(model, loader, optimizer, criterion, on_after_backward=record)
    g_prev, g_now = seen[0]["grads"], seen[1]["grads"]
    g_fresh = fresh_gradients(model, seen[1]["state"], *seen[1]["batch"], criterion)
    return g_prev, g_now, g_fresh


def close(a, b):
    return all(torch.allclose(u, v, atol=1e-6) for u, v in zip(a, b))


if __name__ == "__main__":
    g_prev, g_now, g_fresh = main()
    assert close(g_now, g_fresh), "step 2 did not use the fresh gradient of batch 2"
    print("FIXED: ok")
