"""GG202 look-alike (correct code): two backward() calls per step, done legitimately.

A multi-task network (shared encoder, two heads) logs the per-task gradient norm on
the shared encoder. It calls backward() on the first task loss with retain_graph=True,
records the gradient, then calls backward() on the second task loss through the same
shared graph. Because the first call retained the graph, the second one is valid.
A consistency loss afterwards uses a fresh forward pass, not the freed graph.
Modelled on: none found (correct counterpart of the reports behind 13/14)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class MultiTaskNet(nn.Module):
    def __init__(self, d_in=10, d_h=32, n_cls=3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, d_h), nn.ReLU(), nn.Linear(d_h, d_h), nn.ReLU())
        self.cls_head = nn.Linear(d_h, n_cls)
        self.reg_head = nn.Linear(d_h, 1)

    def forward(self, x):
        z = self.encoder(x)
        return self.cls_head(z), self.reg_head(z).squeeze(-1)


def shared_grad_norm(model):
    return torch.sqrt(sum((p.grad ** 2).sum() for p in model.encoder.parameters())).item()


def train_step(model, optimizer, x, y_cls, y_reg, log):
    optimizer.zero_grad()
    logits, reg = model(x)
    loss_cls = F.cross_entropy(logits, y_cls)
    loss_reg = F.mse_loss(reg, y_reg)

    loss_cls.backward(retain_graph=True)
    norm_cls = shared_grad_norm(model)
    loss_reg.backward()
    norm_total = shared_grad_norm(model)

    # consistency on a noisy view: a *new* forward pass, new graph
    logits_noisy, _ = model(x + 0.01 * torch.randn_like(x))
    consistency = F.kl_div(F.log_softmax(logits_noisy, -1), F.softmax(logits.detach(), -1),
                           reduction="batchmean")
    consistency.backward()
    optimizer.step()
    log.append({"cls": loss_cls.item(), "reg": loss_reg.item(), "g_cls": norm_cls, "g_all": norm_total})


def main():
    torch.manual_seed(0)
    x = torch.randn(64, 10)
    ds = TensorDataset(x, (x[:, 0] > 0).long() + (x[:, 1] > 1).long(), x[:, 2] * 2)
    loader = DataLoader(ds, batch_size=16, shuffle=True)
    model = MultiTaskNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    log = []
    for epoch in range(2):
        for xb, yc, yr in loader:
            train_step(model, optimizer, xb, yc, yr, log)
        print(f"epoch {epoch}: " + ", ".join(f"{k}={v:.3f}" for k, v in log[-1].items()))


if __name__ == "__main__":
    main()
    print("OK")
