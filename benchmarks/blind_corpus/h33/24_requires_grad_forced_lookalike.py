"""Look-alike: zeros accumulator plus real criterion terms.

Modelled on: https://github.com/pytorchbearer/torchbearer/issues/414 (counterpart)

The loss starts as a plain zeros tensor (no forced requires_grad) and the
criterion terms computed from the model output are added to it, so the final
loss carries the model's graph.  requires_grad=True appears only on an input
used for a saliency check, which is a legitimate leaf.
"""
import torch
import torch.nn as nn


def total_loss(y_pred, y_true, criteria):
    loss = torch.zeros(())
    for weight, crit in criteria:
        loss = loss + weight * crit(y_pred, y_true)
    return loss


if __name__ == "__main__":
    g = torch.Generator().manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    criteria = [(1.0, nn.MSELoss()), (0.1, nn.L1Loss())]
    before = [p.detach().clone() for p in model.parameters()]
    for _ in range(3):
        x, y = torch.randn(6, 5, generator=g), torch.randn(6, 1, generator=g)
        loss = total_loss(model(x), y, criteria)
        opt.zero_grad()
        loss.backward()
        opt.step()
    x = torch.randn(1, 5, generator=g, requires_grad=True)
    model(x).sum().backward()
    assert x.grad is not None
    assert not all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
    print("OK")
