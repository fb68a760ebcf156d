"""GG609 look-alike - AMP training with clipping and a manual gradient read, done right.

The loss is scaled for backward, scaler.unscale_(optimizer) runs before
clip_grad_norm_ and before the gradient-norm logging, and the step goes through
scaler.step(optimizer) + scaler.update(). A second, plain fp32 optimizer for an
auxiliary head (outside the scaler) is stepped directly on its own unscaled loss.
"""
import torch
import torch.nn as nn


def grad_norm(params):
    return torch.sqrt(sum(p.grad.detach().pow(2).sum() for p in params if p.grad is not None)).item()


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1)).to(device)
    aux = nn.Linear(8, 1)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    aux_opt = torch.optim.SGD(aux.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler(device.type)
    x = torch.randn(64, 8)
    y = x.sum(-1, keepdim=True)
    norms, losses = [], []
    for step in range(40):
        opt.zero_grad()
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            pred = model(x)
        loss = nn.functional.mse_loss(pred.float(), y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        norms.append(grad_norm(model.parameters()))
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        scaler.step(opt)
        scaler.update()

        aux_opt.zero_grad()
        aux_loss = nn.functional.mse_loss(aux(x), y)
        aux_loss.backward()
        aux_opt.step()
        losses.append(loss.item())
    assert max(norms) < 1000, max(norms)  # real, unscaled norms
    assert losses[-1] < 0.5 * losses[0], (losses[0], losses[-1])
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}, first grad norm {norms[0]:.2f}")


if __name__ == "__main__":
    main()
    print("OK")
