"""Position-embedding cache built under torch.inference_mode() then used in training.

Modelled on: https://github.com/roboflow/rf-detr/issues/461

The report shows training crashing inside the DINOv2 backbone embeddings with
"Inference tensors cannot be saved for backward".  A helper that prepares the
interpolated position embeddings ran under torch.inference_mode() (it was
written for the predict path) and cached its result on the module.  When the
training forward multiplies trainable activations by that cached inference
tensor, autograd must save it for backward and raises.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class PatchEmbeddings(nn.Module):
    def __init__(self, patch=4, dim=16, grid=4):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)
        self.pos_embed = nn.Parameter(torch.randn(1, dim, grid, grid) * 0.02)
        self.pos_cache = None

    @torch.inference_mode()
    def prepare_pos(self, h, w):
        pos = F.interpolate(self.pos_embed, size=(h, w), mode="bilinear", align_corners=False)
        self.pos_cache = torch.sigmoid(pos)

    def forward(self, x):
        x = self.proj(x)
        if self.pos_cache is None or self.pos_cache.shape[-2:] != x.shape[-2:]:
            self.prepare_pos(*x.shape[-2:])
        return x * self.pos_cache  # bug: GG106


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = PatchEmbeddings()
        self.encoder = nn.Sequential(nn.Conv2d(16, 16, 1), nn.GELU())
        self.head = nn.Linear(16, 2)

    def forward(self, images):
        x = self.encoder(self.embeddings(images))
        return self.head(x.mean(dim=(2, 3)))


def train_one_epoch(model, loader, opt):
    model.train()
    for images, targets in loader:
        loss = F.cross_entropy(model(images), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Backbone()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = [(torch.randn(2, 3, 24, 24), torch.tensor([0, 1])) for _ in range(2)]
    try:
        train_one_epoch(model, loader, opt)
        print("no error raised")
    except RuntimeError as e:
        print(f"BUGGY: {e}")
