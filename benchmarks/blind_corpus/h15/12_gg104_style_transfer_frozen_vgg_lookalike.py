"""GG104 look-alike - every model parameter frozen, but the input is optimised.

Category: GG104 (look-alike, correct code).
Neural style transfer: the feature extractor is frozen with
requires_grad_(False) and put in eval mode, yet backward() is valid because
the generated image is a leaf tensor with requires_grad=True that the
optimizer updates.
Modelled on: none found (Gatys-style transfer idiom)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

STYLE_LAYERS = (1, 3)
CONTENT_LAYER = 3


class FeatureExtractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU()])

    def forward(self, x):
        feats = {}
        for i, layer in enumerate(self.layers):
            x = layer(x)
            feats[i] = x
        return feats


def gram_matrix(feat):
    b, c, h, w = feat.shape
    f = feat.view(b, c, h * w)
    return f.bmm(f.transpose(1, 2)) / (c * h * w)


class StyleTransfer:
    def __init__(self, extractor, content, style, style_weight=1e3):
        self.net = extractor.eval().requires_grad_(False)
        self.style_weight = style_weight
        with torch.no_grad():
            self.content_target = self.net(content)[CONTENT_LAYER]
            self.style_targets = {i: gram_matrix(f) for i, f in self.net(style).items()
                                  if i in STYLE_LAYERS}
        self.image = content.clone().requires_grad_(True)
        self.optimizer = torch.optim.Adam([self.image], lr=0.05)

    def step(self):
        feats = self.net(self.image)
        content_loss = F.mse_loss(feats[CONTENT_LAYER], self.content_target)
        style_loss = sum(F.mse_loss(gram_matrix(feats[i]), t) for i, t in self.style_targets.items())
        loss = content_loss + self.style_weight * style_loss
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        with torch.no_grad():
            self.image.clamp_(0, 1)
        return loss.item()


def main():
    torch.manual_seed(0)
    content, style = torch.rand(1, 3, 16, 16), torch.rand(1, 3, 16, 16)
    st = StyleTransfer(FeatureExtractor(), content, style)
    assert not any(p.requires_grad for p in st.net.parameters())
    for i in range(5):
        loss = st.step()
    print(f"final loss {loss:.5f}")
    assert not torch.equal(st.image.detach(), content), "image should change"


if __name__ == "__main__":
    main()
    print("OK")
