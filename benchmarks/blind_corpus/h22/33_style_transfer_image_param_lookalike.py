"""Category GG405 look-alike - optimizer given tensors built by expressions, all leaves.

Neural style transfer optimises the pixels of an image. The image to optimise is
`content.clone().requires_grad_(True)` and a learnable colour gain is
`(torch.ones(3, 1, 1) * 0.9).requires_grad_()`: both are produced by operations,
but from tensors that do not require grad, so both are leaf tensors and the
optimizer accepts them. A learnable scale is also wrapped as nn.Parameter of a
scaled tensor. Expected: runs cleanly and the image changes.

Modelled on: none found (classic neural-style tutorial shape)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

STYLE_WEIGHT, CONTENT_WEIGHT, STEPS = 1e3, 1.0, 4


class FeatureExtractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)])
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        feats = []
        for layer in self.layers:
            x = F.relu(layer(x))
            feats.append(x)
        return feats


def gram_matrix(f):
    b, c, h, w = f.shape
    flat = f.view(b, c, h * w)
    return flat @ flat.transpose(1, 2) / (c * h * w)


def run_style_transfer(extractor, content, style):
    image = content.clone().requires_grad_(True)
    gain = (torch.ones(3, 1, 1) * 0.9).requires_grad_()
    log_scale = nn.Parameter(torch.zeros(1) * 2.0)
    optimizer = torch.optim.Adam([image, gain, log_scale], lr=0.05)
    target_content = [f.detach() for f in extractor(content)]
    target_grams = [gram_matrix(f).detach() for f in extractor(style)]
    for step in range(STEPS):
        out = extractor(image * gain * log_scale.exp())
        c_loss = sum(F.mse_loss(o, t) for o, t in zip(out, target_content))
        s_loss = sum(F.mse_loss(gram_matrix(o), g) for o, g in zip(out, target_grams))
        loss = CONTENT_WEIGHT * c_loss + STYLE_WEIGHT * s_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            image.clamp_(0, 1)
        print(f"step {step}: content {c_loss.item():.4f} style {s_loss.item():.4f}")
    return image.detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    content = torch.rand(1, 3, 16, 16)
    style = torch.rand(1, 3, 16, 16)
    result = run_style_transfer(FeatureExtractor(), content, style)
    assert not torch.equal(result, content)
    print("OK")
