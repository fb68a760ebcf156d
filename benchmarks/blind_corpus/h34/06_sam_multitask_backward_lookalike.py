"""Multi-task classifier trained with SAM, second pass via a closure.

Modelled on: https://github.com/davda54/sam/issues/10 (counterpart)

Look-alike: two ``backward()`` calls per batch, as in the report, but each
one is on a loss built by its own forward pass inside ``compute_loss``; the
second loss never reuses the first loss tensor, so no freed graph is walked.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)

    @torch.no_grad()
    def first_step(self):
        norms = [p.grad.norm(2) for g in self.param_groups for p in g["params"] if p.grad is not None]
        grad_norm = torch.norm(torch.stack(norms), 2)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                e_w = p.grad * group["rho"] / (grad_norm + 1e-12)
                p.add_(e_w)
                self.state[p]["e_w"] = e_w
        self.zero_grad()

    @torch.no_grad()
    def second_step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if "e_w" in self.state[p]:
                    p.sub_(self.state[p]["e_w"])
        self.base_optimizer.step()
        self.zero_grad()


class MultiHeadNet(nn.Module):
    def __init__(self, in_dim, num_tasks):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(32, 1) for _ in range(num_tasks)])

    def forward(self, x):
        feat = self.backbone(x)
        return [h(feat) for h in self.heads]


def compute_loss(model, image, target, num_tasks):
    output = model(image)
    loss = 0
    for t in range(num_tasks):
        loss = loss + F.binary_cross_entropy_with_logits(output[t].squeeze(-1), target[:, t])
    return loss


def train_epoch(model, loader, optimizer, num_tasks):
    history = []
    for image, target in loader:
        loss = compute_loss(model, image, target, num_tasks)
        loss.backward()
        optimizer.first_step()
        loss = compute_loss(model, image, target, num_tasks)
        loss.backward()
        optimizer.second_step()
        history.append(loss.item())
    return history


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(64, 10)
    y = (torch.rand(64, 3) > 0.5).float()
    loader = [(x[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)]
    model = MultiHeadNet(10, 3)
    opt = SAM(model.parameters(), torch.optim.SGD, lr=0.1, momentum=0.9)
    train_epoch(model, loader, opt, 3)
    print("OK")
