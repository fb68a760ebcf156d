"""GG102 - multi-stage restoration loss summed from .item() values.

An MPRNet-style deblurring network returns one restored image per stage.  The
training loop sums the per-stage Charbonnier and edge losses with np.sum, and to
feed np.sum it converts each stage loss with .item().  The final "loss" is a
NumPy float with no autograd history, so the backward() call fails:
    AttributeError: 'numpy.float64' object has no attribute 'backward'

Modelled on: https://github.com/swz30/MPRNet/issues/108
"""
import os
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

OPT = {
    "BATCH_SIZE": 4,
    "PATCH": 16,
    "LR_INITIAL": 2e-4,
    "LR_MIN": 1e-6,
    "NUM_EPOCHS": 2,
    "SAVE_DIR": tempfile.mkdtemp(prefix="mprnet_"),
}


# ---------------------------------------------------------------- losses.py
class CharbonnierLoss(nn.Module):
    def __init__(self, eps=1e-3):
        super().__init__()
        self.eps = eps

    def forward(self, x, y):
        diff = x - y
        return torch.mean(torch.sqrt(diff * diff + self.eps * self.eps))


class EdgeLoss(nn.Module):
    def __init__(self):
        super().__init__()
        k = torch.tensor([[0.05, 0.25, 0.4, 0.25, 0.05]])
        kernel = (k.t() @ k).unsqueeze(0).unsqueeze(0).repeat(3, 1, 1, 1)
        self.register_buffer("kernel", kernel)
        self.loss = CharbonnierLoss()

    def conv_gauss(self, img):
        img = F.pad(img, (2, 2, 2, 2), mode="replicate")
        return F.conv2d(img, self.kernel, groups=img.shape[1])

    def laplacian_kernel(self, current):
        filtered = self.conv_gauss(current)
        down = filtered[:, :, ::2, ::2]
        new_filter = torch.zeros_like(filtered)
        new_filter[:, :, ::2, ::2] = down * 4
        return current - self.conv_gauss(new_filter)

    def forward(self, x, y):
        return self.loss(self.laplacian_kernel(x), self.laplacian_kernel(y))


# ------------------------------------------------------------------ MPRNet.py
class StageBlock(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.PReLU(), nn.Conv2d(ch, 3, 3, padding=1))

    def forward(self, x):
        return x + self.body(x)


class MPRNetLite(nn.Module):
    def __init__(self, n_stages=3):
        super().__init__()
        self.stages = nn.ModuleList([StageBlock() for _ in range(n_stages)])

    def forward(self, x):
        outputs = []
        for stage in self.stages:
            x = stage(x)
            outputs.append(x)
        return outputs[::-1]   # last stage first, like the original


# ------------------------------------------------------------------- train.py
def make_loader():
    target = torch.rand(8, 3, OPT["PATCH"], OPT["PATCH"])
    blurred = (target + 0.1 * torch.randn_like(target)).clamp(0, 1)
    return DataLoader(TensorDataset(target, blurred), batch_size=OPT["BATCH_SIZE"], shuffle=True)


def main():
    torch.manual_seed(0)
    model_restoration = MPRNetLite()
    optimizer = torch.optim.Adam(model_restoration.parameters(), lr=OPT["LR_INITIAL"], betas=(0.9, 0.999), eps=1e-8)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, OPT["NUM_EPOCHS"], eta_min=OPT["LR_MIN"])
    criterion_char = CharbonnierLoss()
    criterion_edge = EdgeLoss()
    train_loader = make_loader()

    for epoch in range(1, OPT["NUM_EPOCHS"] + 1):
        epoch_start_time = time.time()
        epoch_loss = 0
        model_restoration.train()
        for i, data in enumerate(train_loader, 0):
            for param in model_restoration.parameters():
                param.grad = None
            target, input_ = data[0], data[1]
            restored = model_restoration(input_)

            loss_char = np.sum([criterion_char(restored[j], target).item() for j in range(len(restored))])
            loss_edge = np.sum([criterion_edge(restored[j], target).item() for j in range(len(restored))])
            loss = loss_char + (0.05 * loss_edge)

            loss.backward()  # bug: GG102
            optimizer.step()
            epoch_loss += loss.item()
        scheduler.step()
        print(f"Epoch: {epoch}\tTime: {time.time() - epoch_start_time:.2f}\tLoss: {epoch_loss:.4f}")
        torch.save({"epoch": epoch, "state_dict": model_restoration.state_dict()},
                   os.path.join(OPT["SAVE_DIR"], "model_latest.pth"))


if __name__ == "__main__":
    try:
        main()
    except AttributeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
