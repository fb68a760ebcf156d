"""GG109 (fixed) - SAM fine-tuning with the mask decoder really trainable.

Same finetune-SAM style script; the --if_update_decoder flag now defaults to
True, so the decoder parameters require grad, the loss has a real graph and the
loss.requires_grad = True workaround is gone.  The decoder weights change.

Modelled on: https://github.com/mazurowski-lab/finetune-SAM/issues/26
"""
import argparse
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--finetune_type", default="vanilla", choices=["vanilla", "adapter"])
parser.add_argument("--if_update_encoder", action="store_true")
parser.add_argument("--if_update_decoder", type=lambda v: v.lower() == "true", default=True)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=2)
parser.add_argument("--b", type=int, default=4)
parser.add_argument("--dir_checkpoint", default=tempfile.mkdtemp(prefix="sam_ft_"))


class Adapter(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.down, self.up = nn.Linear(dim, dim // 4), nn.Linear(dim // 4, dim)

    def forward(self, x):
        return x + self.up(F.gelu(self.down(x)))


class ImageEncoderViT(nn.Module):
    def __init__(self, dim=32, patch=4):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch, patch)
        self.block = nn.TransformerEncoderLayer(dim, 4, dim * 2, batch_first=True)
        self.Adapter = Adapter(dim)

    def forward(self, x):
        f = self.patch_embed(x)
        b, c, h, w = f.shape
        t = self.Adapter(self.block(f.flatten(2).transpose(1, 2)))
        return t.transpose(1, 2).reshape(b, c, h, w)


class MaskDecoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(dim, dim // 2, 3, padding=1), nn.GELU())
        self.upscale = nn.ConvTranspose2d(dim // 2, 1, 4, 4)

    def forward(self, feats):
        return self.upscale(self.conv(feats))


class Sam(nn.Module):
    def __init__(self):
        super().__init__()
        self.image_encoder = ImageEncoderViT()
        self.mask_decoder = MaskDecoder()

    def forward(self, imgs):
        return self.mask_decoder(self.image_encoder(imgs))


def dice_ce_loss(pred, msk):
    prob = torch.sigmoid(pred)
    dice = 1 - (2 * (prob * msk).sum() + 1) / (prob.sum() + msk.sum() + 1)
    return dice + F.binary_cross_entropy_with_logits(pred, msk)


def set_trainable(sam, args):
    for n, value in sam.image_encoder.named_parameters():
        if args.finetune_type == "adapter" and "Adapter" in n:
            value.requires_grad = True
        else:
            value.requires_grad = args.if_update_encoder
    for n, value in sam.mask_decoder.named_parameters():
        value.requires_grad = args.if_update_decoder


def train_model(trainloader, args):
    sam = Sam()
    set_trainable(sam, args)
    optimizer = torch.optim.AdamW(sam.parameters(), lr=args.lr, betas=(0.9, 0.999), weight_decay=0.1)
    dec_before = [p.detach().clone() for p in sam.mask_decoder.parameters()]
    for epoch in range(args.epochs):
        sam.train()
        train_loss = 0
        for i, (imgs, msks) in enumerate(trainloader):
            pred = sam(imgs)
            loss = dice_ce_loss(pred, msks)
            optimizer.zero_grad()  # fixed: GG109 (no loss.requires_grad override)
            loss.backward()
            optimizer.step()
            train_loss += loss.item()
        print(f"epoch {epoch}: train loss {train_loss / (i + 1):.4f}")
    torch.save(sam.state_dict(), os.path.join(args.dir_checkpoint, "checkpoint_best.pth"))
    return sam, dec_before


def main():
    args = parser.parse_args([])
    torch.manual_seed(0)
    imgs = torch.randn(8, 3, 16, 16)
    msks = (imgs.mean(1, keepdim=True) > 0).float()
    loader = DataLoader(TensorDataset(imgs, msks), batch_size=args.b, shuffle=True)
    sam, dec_before = train_model(loader, args)
    changed = any(not torch.equal(a, b) for a, b in zip(dec_before, sam.mask_decoder.parameters()))
    return changed


if __name__ == "__main__":
    assert main(), "mask decoder did not train"
    print("FIXED: ok")
