"""Fixed: Gatys neural style transfer: the per-layer losses are collected and summed.

Modelled on: https://github.com/leongatys/PytorchNeuralStyleTransfer/issues/16

The notebook builds ``layer_losses`` (one Gram/content loss per VGG layer) and
sums them inside the LBFGS closure.  Summing the Python list failed for the
reporter, and the "fix" that converts the list with ``torch.tensor(...)`` copies
only the values: the resulting tensor is a fresh leaf without history, so
``loss.backward()`` raises "element 0 of tensors does not require grad and does
not have a grad_fn" and the optimised image can never change.

Fix (as suggested in the thread): ``torch.stack(layer_losses).sum()`` keeps
every layer loss in the graph.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyVGG(nn.Module):
    """Stand-in for the VGG19 feature extractor, returning named activations."""

    def __init__(self):
        super().__init__()
        self.conv1_1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2_1 = nn.Conv2d(8, 16, 3, padding=1)
        self.conv3_1 = nn.Conv2d(16, 16, 3, padding=1)
        self.pool = nn.AvgPool2d(2)

    def forward(self, x, out_keys):
        out = {}
        out["r11"] = F.relu(self.conv1_1(x))
        out["r21"] = F.relu(self.conv2_1(self.pool(out["r11"])))
        out["r31"] = F.relu(self.conv3_1(self.pool(out["r21"])))
        return [out[k] for k in out_keys]


class GramMatrix(nn.Module):
    def forward(self, x):
        b, c, h, w = x.size()
        f = x.view(b, c, h * w)
        return torch.bmm(f, f.transpose(1, 2)).div_(h * w)


class GramMSELoss(nn.Module):
    def forward(self, x, target):
        return F.mse_loss(GramMatrix()(x), target)


def build_targets(vgg, style_img, content_img, style_layers, content_layers):
    with torch.no_grad():
        style_t = [GramMatrix()(a) for a in vgg(style_img, style_layers)]
        content_t = vgg(content_img, content_layers)
    return style_t + content_t


def run_style_transfer(vgg, style_img, content_img, max_iter, show_iter=2):
    style_layers = ["r11", "r21", "r31"]
    content_layers = ["r21"]
    loss_layers = style_layers + content_layers
    loss_fns = [GramMSELoss()] * len(style_layers) + [nn.MSELoss()] * len(content_layers)
    weights = [1e3 / n ** 2 for n in [8, 16, 16]] + [1.0]
    targets = build_targets(vgg, style_img, content_img, style_layers, content_layers)

    opt_img = content_img.clone().requires_grad_(True)
    optimizer = torch.optim.LBFGS([opt_img], max_iter=1)
    n_iter = [0]
    while n_iter[0] < max_iter:
        def closure():
            optimizer.zero_grad()
            out = vgg(opt_img, loss_layers)
            layer_losses = [weights[a] * loss_fns[a](A, targets[a]) for a, A in enumerate(out)]
            loss = torch.stack(layer_losses).sum()
            loss.backward()
            n_iter[0] += 1
            if n_iter[0] % show_iter == 0:
                print(f"Iteration: {n_iter[0]}, loss: {loss.item():.4f}")
            return loss
        optimizer.step(closure)
    return opt_img.detach()


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--max_iter", type=int, default=4)
    parser.add_argument("--size", type=int, default=16)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    vgg = TinyVGG()
    for p in vgg.parameters():
        p.requires_grad = False
    style = torch.rand(1, 3, args.size, args.size)
    content = torch.rand(1, 3, args.size, args.size)
    result = run_style_transfer(vgg, style, content, args.max_iter)
    return (result - content).abs().max().item()


if __name__ == "__main__":
    changed = main([])
    assert changed > 0, "the optimised image should move away from the content image"
    print("FIXED: ok")
