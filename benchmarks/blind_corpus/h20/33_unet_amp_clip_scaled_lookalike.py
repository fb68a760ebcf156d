"""GG609 look-alike - clip_grad_norm_ in a GradScaler loop, with the unscale inside a helper.

The trainer's clip_gradients() helper calls scaler.unscale_(optimizer) itself
before clipping, so the clipped gradients are the true ones. At the call site
the loop reads like "scale/backward, clip, scaler.step" with no visible unscale_.

Modelled on: https://github.com/milesial/Pytorch-UNet/pull/470
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinySegNet(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.n_classes = n_classes
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, n_classes, 1))

    def forward(self, x):
        return self.body(x)


class SegTrainer:
    def __init__(self, model, device, lr=1e-4, max_norm=1.0):
        self.model, self.device, self.max_norm = model, device, max_norm
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler(device.type)

    def clip_gradients(self):
        self.scaler.unscale_(self.optimizer)
        return torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)

    def train_step(self, images, masks):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast(self.device.type, dtype=torch.bfloat16):
            loss = F.cross_entropy(self.model(images).float(), masks)
        self.scaler.scale(loss).backward()
        norm = self.clip_gradients()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss.item(), norm.item()


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    trainer = SegTrainer(TinySegNet().to(device), device)
    for step in range(3):
        imgs, masks = torch.randn(4, 3, 16, 16), torch.randint(0, 2, (4, 16, 16))
        loss, norm = trainer.train_step(imgs, masks)
        print(f"step {step} loss {loss:.4f} grad norm {norm:.3f}")
        assert norm < 1e3


if __name__ == "__main__":
    main()
    print("OK")
