"""GG112 (fixed) - reentrant checkpoint whose inputs do not require grad.

Fix: the blocks use the non-reentrant checkpoint (use_reentrant=False), which
tracks the block parameters even when the input tokens do not require grad.

A CLIP-like image tower supports `lock_stem` (frozen patch embedding) and
`grad_checkpointing`. Each residual block is wrapped in
torch.utils.checkpoint.checkpoint(..., use_reentrant=True). With the stem
frozen, the tokens entering the first block do not require grad, so the
reentrant checkpoint returns outputs without grad_fn: every transformer block
is silently left out of backward (grads stay None) while only the projection
head trains. torch only warns: "None of the inputs have requires_grad=True."

Modelled on: https://github.com/mlfoundations/open_clip/issues/573
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

ARGS = dict(image=16, patch=4, width=32, layers=2, heads=4, embed_dim=16, batch=4,
            steps=2, lr=1e-3, lock_stem=True, grad_checkpointing=True)


class ResidualAttentionBlock(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = nn.MultiheadAttention(width, heads, batch_first=True)
        self.ln_2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x):
        h = self.ln_1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln_2(x))


class Transformer(nn.Module):
    def __init__(self, width, layers, heads):
        super().__init__()
        self.resblocks = nn.ModuleList([ResidualAttentionBlock(width, heads) for _ in range(layers)])
        self.grad_checkpointing = False

    def forward(self, x):
        for r in self.resblocks:
            if self.grad_checkpointing and self.training:
                x = checkpoint(r, x, use_reentrant=False)  # fixed: GG112
            else:
                x = r(x)
        return x


class VisionTower(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.conv1 = nn.Conv2d(3, a["width"], a["patch"], stride=a["patch"], bias=False)
        n = (a["image"] // a["patch"]) ** 2
        self.register_buffer("positional_embedding", torch.randn(n, a["width"]) * 0.02)
        self.transformer = Transformer(a["width"], a["layers"], a["heads"])
        self.ln_post = nn.LayerNorm(a["width"])
        self.proj = nn.Linear(a["width"], a["embed_dim"], bias=False)

    def lock_stem(self):
        self.conv1.requires_grad_(False)

    def set_grad_checkpointing(self, enable=True):
        self.transformer.grad_checkpointing = enable

    def forward(self, images):
        x = self.conv1(images).flatten(2).transpose(1, 2) + self.positional_embedding
        x = self.transformer(x)
        return self.proj(self.ln_post(x.mean(dim=1)))


def contrastive_loss(img_emb, txt_emb, temperature=0.07):
    img_emb, txt_emb = F.normalize(img_emb, dim=-1), F.normalize(txt_emb, dim=-1)
    logits = img_emb @ txt_emb.t() / temperature
    labels = torch.arange(logits.shape[0])
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2


def main():
    torch.manual_seed(0)
    a = ARGS
    model = VisionTower(a)
    if a["lock_stem"]:
        model.lock_stem()
    model.set_grad_checkpointing(a["grad_checkpointing"])
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=a["lr"])
    model.train()
    for step in range(a["steps"]):
        images = torch.randn(a["batch"], 3, a["image"], a["image"])
        text_features = torch.randn(a["batch"], a["embed_dim"])
        loss = contrastive_loss(model(images), text_features)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}")
    return model


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = main()
    block_grads = [p.grad for p in model.transformer.parameters()]
    assert all(g is not None for g in block_grads), "blocks still untrained"
    print("FIXED: ok")
