"""GG106 look-alike - torch.inference_mode() around feature caching and
validation, with training on features cached under torch.no_grad().

The training features are produced under no_grad (ordinary tensors, usable by
autograd later); inference_mode is only used for the validation pass whose
outputs are never involved in backward().

Modelled on: https://gitea.ts-pc.fr/Ethanfel/ComfyUI-SelVA/src/commit/357b875e5e92083786a78aaeec948598dbe97c70/nodes (safe split)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLIP_DIM, LATENT, FRAMES, EPOCHS = 24, 16, 8, 3


class FrozenClipEncoder(nn.Module):
    def __init__(self, out_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                 nn.Flatten(), nn.Linear(8, out_dim))

    def forward(self, x):
        return self.net(x)


class Adapter(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(CLIP_DIM, LATENT)
        self.mix = nn.GRU(LATENT, LATENT, batch_first=True)

    def forward(self, f):
        out, _ = self.mix(self.inp(f))
        return out


def cache_features(encoder, video):
    encoder.eval()
    with torch.no_grad():
        b, t = video.shape[:2]
        return encoder(video.flatten(0, 1)).view(b, t, -1)


def evaluate(encoder, adapter, video, target):
    with torch.inference_mode():
        b, t = video.shape[:2]
        feats = encoder(video.flatten(0, 1)).view(b, t, -1)
        return F.mse_loss(adapter(feats), target).item()


def main():
    torch.manual_seed(0)
    encoder = FrozenClipEncoder(CLIP_DIM)
    adapter = Adapter()
    train_video, val_video = torch.randn(2, FRAMES, 3, 16, 16), torch.randn(2, FRAMES, 3, 16, 16)
    train_t, val_t = torch.randn(2, FRAMES, LATENT), torch.randn(2, FRAMES, LATENT)
    feats = cache_features(encoder, train_video)
    opt = torch.optim.AdamW(adapter.parameters(), lr=1e-2)
    first = None
    for epoch in range(EPOCHS):
        loss = F.mse_loss(adapter(feats), train_t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
        print(f"epoch {epoch}: train {loss.item():.4f} val {evaluate(encoder, adapter, val_video, val_t):.4f}")
    assert adapter.inp.weight.grad is not None


if __name__ == "__main__":
    main()
    print("OK")
