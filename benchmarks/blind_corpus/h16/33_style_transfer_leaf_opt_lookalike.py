"""GG405 look-alike: optimizers fed tensors built by arithmetic, all of them still leaves.

Neural style transfer optimises the pixels of `input_img = content.clone().requires_grad_()`
(clone happens before requires_grad is switched on), a learnable log-temperature is
`nn.Parameter(torch.ones(1) * 0.07)` (scaling done before wrapping), and synthetic images
are `(torch.randn(...) * 0.01).requires_grad_()`. All of them are leaves. Correct code.

Modelled on: https://github.com/aliasgharkhani/SLiMe/issues/10 (optimising input-side
tensors, created as leaves)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

STYLE_WEIGHT, CONTENT_WEIGHT, STEPS = 1e3, 1.0, 4


class FeatureNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        f1 = self.block1(x)
        return f1, self.block2(f1)


def gram_matrix(feat):
    b, c, h, w = feat.size()
    f = feat.view(b, c, h * w)
    return f @ f.transpose(1, 2) / (c * h * w)


def run_style_transfer(net, content_img, style_img, steps=STEPS):
    input_img = content_img.clone().requires_grad_(True)
    optimizer = torch.optim.LBFGS([input_img])
    with torch.no_grad():
        style_grams = [gram_matrix(f) for f in net(style_img)]
        content_feat = net(content_img)[1]
    for _ in range(steps):
        def closure():
            with torch.no_grad():
                input_img.clamp_(0, 1)
            optimizer.zero_grad()
            feats = net(input_img)
            style_loss = sum(F.mse_loss(gram_matrix(f), g) for f, g in zip(feats, style_grams))
            content_loss = F.mse_loss(feats[1], content_feat)
            loss = STYLE_WEIGHT * style_loss + CONTENT_WEIGHT * content_loss
            loss.backward()
            return loss
        optimizer.step(closure)
    return input_img.detach().clamp(0, 1)


class Prototypes(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.temperature = nn.Parameter(torch.ones(1) * 0.07)
        self.protos = nn.Parameter(torch.randn(n, dim) * 0.01)


def main():
    torch.manual_seed(0)
    net = FeatureNet()
    out = run_style_transfer(net, torch.rand(1, 3, 16, 16), torch.rand(1, 3, 16, 16))
    syn = (torch.randn(4, 3, 16, 16) * 0.01).requires_grad_()
    protos = Prototypes(3, 16)
    opt = torch.optim.SGD([syn, *protos.parameters()], lr=0.1)
    feats = net(syn)[1].mean(dim=(2, 3))
    logits = F.normalize(feats, dim=1) @ F.normalize(protos.protos, dim=1).t() / protos.temperature
    loss = F.cross_entropy(logits, torch.tensor([0, 1, 2, 0]))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"stylised image range [{out.min():.2f}, {out.max():.2f}], proto loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
    print("OK")
