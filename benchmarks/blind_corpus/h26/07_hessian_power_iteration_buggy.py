"""GG503 - gradients from autograd.grad differentiated again without create_graph=True.

A sharpness monitor estimates the top Hessian eigenvalue by power iteration
(Hessian-vector products).  The helper takes the first-order gradients with
torch.autograd.grad(loss, params) but forgets create_graph=True, so the
returned gradients are plain tensors with no graph.  Differentiating them a
second time (the Hessian-vector product) fails.
torch raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/amirgholami/PyHessian/issues/12
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SETTINGS = dict(in_ch=1, n_cls=4, img=8, batch=16, epochs=1, lr=0.05,
                power_iters=5, monitor_every=2, tol=1e-3)


class SmallConvNet(nn.Module):
    def __init__(self, in_ch, n_cls):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_ch, 8, 3, padding=1), nn.Tanh(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.Tanh(), nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(16, n_cls)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def normalize(vs):
    norm = torch.sqrt(sum((v * v).sum() for v in vs))
    return [v / (norm + 1e-6) for v in vs]


def group_product(xs, ys):
    return sum((x * y).sum() for x, y in zip(xs, ys))


class HessianMonitor:
    """Top eigenvalue of the loss Hessian on one batch."""

    def __init__(self, model, criterion, batch):
        self.model = model
        self.criterion = criterion
        self.inputs, self.targets = batch
        self.params = [p for p in model.parameters() if p.requires_grad]

    def _grads(self):
        loss = self.criterion(self.model(self.inputs), self.targets)
        grads = torch.autograd.grad(loss, self.params)  # bug: GG503
        return grads

    def hvp(self, grads, v):
        return torch.autograd.grad(grads, self.params, grad_outputs=v, retain_graph=True)

    def top_eigenvalue(self, iters, tol):
        grads = self._grads()
        v = normalize([torch.randn_like(p) for p in self.params])
        eig = None
        for _ in range(iters):
            hv = self.hvp(grads, v)
            new_eig = group_product(hv, v).item()
            v = normalize([h.detach() for h in hv])
            if eig is not None and abs(new_eig - eig) / (abs(eig) + 1e-6) < tol:
                eig = new_eig
                break
            eig = new_eig
        return eig


def train(model, loader, optimizer, criterion, cfg):
    sharpness = []
    for epoch in range(cfg["epochs"]):
        for step, (x, y) in enumerate(loader):
            model.train()
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            if step % cfg["monitor_every"] == 0:
                model.eval()
                eig = HessianMonitor(model, criterion, (x, y)).top_eigenvalue(cfg["power_iters"], cfg["tol"])
                sharpness.append(eig)
                print(f"epoch {epoch} step {step} loss {loss.item():.3f} top-eig {eig:.3f}")
    return sharpness


def main():
    cfg = SETTINGS
    torch.manual_seed(0)
    x = torch.randn(48, cfg["in_ch"], cfg["img"], cfg["img"])
    y = torch.randint(0, cfg["n_cls"], (48,))
    loader = DataLoader(TensorDataset(x, y), batch_size=cfg["batch"], shuffle=True)
    model = SmallConvNet(cfg["in_ch"], cfg["n_cls"])
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    return train(model, loader, optimizer, nn.CrossEntropyLoss(), cfg)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
