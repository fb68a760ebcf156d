"""Category GG109 -- requires_grad forced on a loss without history.
Status: buggy.
A multi-stage deblurring network returns one restored image per stage.  The stage
losses (Charbonnier + edge) are gathered with `torch.tensor([...], requires_grad=True)`
because without the flag backward() complained.  Now backward() runs, but the loss
is a fresh leaf: no gradient reaches the network, the optimizer has nothing to apply
and the weights (and PSNR) never change.  Silent: no exception.
Modelled on: https://github.com/MC-E/Deep-Generalized-Unfolding-Networks-for-Image-Restoration/issues/6
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class CharbonnierLoss(nn.Module):
    def __init__(self, eps=1e-3):
        super().__init__()
        self.eps = eps

    def forward(self, x, y):
        return torch.mean(torch.sqrt((x - y) ** 2 + self.eps ** 2))


class EdgeLoss(nn.Module):
    def __init__(self):
        super().__init__()
        k = torch.tensor([[0.05, 0.25, 0.4, 0.25, 0.05]])
        self.register_buffer("kernel", (k.t() @ k).unsqueeze(0).unsqueeze(0).repeat(3, 1, 1, 1))
        self.loss = CharbonnierLoss()

    def laplacian(self, img):
        blurred = F.conv2d(F.pad(img, (2, 2, 2, 2), mode="replicate"), self.kernel, groups=3)
        return img - blurred

    def forward(self, x, y):
        return self.loss(self.laplacian(x), self.laplacian(y))


class Stage(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(6, ch, 3, padding=1), nn.PReLU(), nn.Conv2d(ch, 3, 3, padding=1))

    def forward(self, blurred, prev):
        return prev + self.body(torch.cat([blurred, prev], 1))


class MultiStageNet(nn.Module):
    def __init__(self, n_stages=3):
        super().__init__()
        self.stages = nn.ModuleList(Stage() for _ in range(n_stages))

    def forward(self, blurred):
        outs, cur = [], blurred
        for stage in self.stages:
            cur = stage(blurred, cur)
            outs.append(cur)
        return outs[::-1]


def psnr(a, b):
    return (10 * torch.log10(1 / F.mse_loss(a, b))).item()


def main(iters=6):
    torch.manual_seed(0)
    model_restoration = MultiStageNet()
    optimizer = torch.optim.Adam(model_restoration.parameters(), lr=2e-4, betas=(0.9, 0.999))
    criterion_char, criterion_edge = CharbonnierLoss(), EdgeLoss()
    target = torch.rand(4, 3, 16, 16)
    input_ = (target + 0.1 * torch.randn_like(target)).clamp(0, 1)
    w0 = model_restoration.stages[0].body[0].weight.detach().clone()
    for it in range(iters):
        optimizer.zero_grad()
        restored = model_restoration(input_)
        char_terms = [criterion_char(restored[j], target) for j in range(len(restored))]
        edge_terms = [criterion_edge(restored[j], target) for j in range(len(restored))]
        loss_char = torch.tensor(char_terms, requires_grad=True).sum()  # bug: GG109
        loss_edge = torch.tensor(edge_terms, requires_grad=True).sum()  # bug: GG109
        loss = loss_char + 0.05 * loss_edge
        loss.backward()
        optimizer.step()
        print(f"iter {it}: loss {loss.item():.4f} psnr {psnr(restored[0].clamp(0, 1), target):.2f}")
    grad = model_restoration.stages[0].body[0].weight.grad
    changed = not torch.equal(w0, model_restoration.stages[0].body[0].weight.detach())
    return changed, grad


if __name__ == "__main__":
    changed, grad = main()
    if changed or grad is not None:
        raise SystemExit("NO BUG")
    print("BUGGY: backward() ran but the network got no gradient (grad is None) and its weights never changed")
