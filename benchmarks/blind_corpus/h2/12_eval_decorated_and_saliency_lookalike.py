"""GG204 look-alike: evaluation loops that look unguarded but keep no graph alive.

Category GG204 (look-alike, no bug). ``evaluate`` has no ``with torch.no_grad()`` block in
its body, but the whole function is decorated with @torch.inference_mode(), so nothing is
recorded. ``saliency_maps`` runs the model in eval mode with autograd on, on purpose: it
needs the gradient of the score with respect to the input, and it stores only detached
gradients, so each batch's graph is released after its autograd.grad() call.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class MLPRegressor(nn.Module):
    def __init__(self, d_in=8):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, 32), nn.SiLU(), nn.Dropout(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.body(x).squeeze(-1)


@torch.inference_mode()
def evaluate(model, loader):
    model.eval()
    preds, errors = [], []
    for x, y in loader:
        out = model(x)
        preds.append(out)
        errors.append((out - y).abs())
    return torch.cat(preds), torch.cat(errors).mean().item()


def saliency_maps(model, loader):
    model.eval()
    maps = []
    for x, _ in loader:
        x = x.clone().requires_grad_(True)
        score = model(x).sum()
        (grad,) = torch.autograd.grad(score, x)
        maps.append(grad.abs().detach())
    return torch.cat(maps)


def main():
    torch.manual_seed(10)
    w = torch.randn(8)
    x = torch.randn(96, 8)
    y = x @ w + 0.1 * torch.randn(96)
    train_loader = DataLoader(TensorDataset(x[:64], y[:64]), batch_size=16, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[64:], y[64:]), batch_size=16)
    model = MLPRegressor()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(3):
        model.train()
        for xb, yb in train_loader:
            opt.zero_grad()
            nn.functional.mse_loss(model(xb), yb).backward()
            opt.step()
        preds, mae = evaluate(model, val_loader)
        print(f"epoch {epoch}: val MAE {mae:.3f}")
    sal = saliency_maps(model, val_loader)
    assert not preds.requires_grad and sal.grad_fn is None
    print("most salient feature:", sal.mean(0).argmax().item())


if __name__ == "__main__":
    main()
    print("OK")
