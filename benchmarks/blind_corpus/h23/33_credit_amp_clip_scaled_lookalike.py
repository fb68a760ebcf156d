"""GG609 look-alike - AMP clipping where the unscale happens inside a helper.

A segmentation training loop does ``scaler.scale(loss).backward()``, then
``grad_norm = clip_gradients(...)``, then ``scaler.step(optimizer)``.  In the
loop body it looks like clipping on still-scaled gradients, but the helper
calls ``scaler.unscale_(optimizer)`` before ``clip_grad_norm_``.  The measured
norm equals the true gradient norm.  Runs cleanly.

Modelled on: https://github.com/NCAR/miles-credit/pull/141 (correct variant)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"classes": 3, "max_norm": 0.5, "steps": 3, "lr": 1e-3}


class TinyUNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.down = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.head = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        e = self.enc(x)
        return self.head(torch.cat([e, self.up(self.down(e))], dim=1))


def clip_gradients(scaler, optimizer, parameters, max_norm):
    scaler.unscale_(optimizer)
    return torch.nn.utils.clip_grad_norm_(parameters, max_norm)


def dice_ce_loss(logits, target, n_classes):
    ce = F.cross_entropy(logits.float(), target)
    prob = logits.float().softmax(1)
    onehot = F.one_hot(target, n_classes).permute(0, 3, 1, 2).float()
    dice = 1 - (2 * (prob * onehot).sum((2, 3)) + 1) / (prob.sum((2, 3)) + onehot.sum((2, 3)) + 1)
    return ce + dice.mean()


def main():
    torch.manual_seed(0)
    model = TinyUNet(CFG["classes"])
    optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 12)
    for step in range(CFG["steps"]):
        x = torch.rand(2, 3, 16, 16)
        y = torch.randint(0, CFG["classes"], (2, 16, 16))
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
        loss = dice_ce_loss(logits, y, CFG["classes"])
        true = torch.autograd.grad(loss, list(model.parameters()), retain_graph=True)
        true_norm = float(torch.sqrt(sum(g.pow(2).sum() for g in true)))
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        grad_norm = clip_gradients(scaler, optimizer, model.parameters(), CFG["max_norm"])
        scaler.step(optimizer)
        scaler.update()
        assert abs(float(grad_norm) / true_norm - 1) < 1e-2
        print(f"step {step}: loss {loss.item():.4f} grad_norm {float(grad_norm):.4f}")


if __name__ == "__main__":
    main()
    print("OK")
