"""GG109 look-alike - requires_grad=True set on a fresh tensor that is a real parameter.

A CLIP-style contrastive trainer keeps its temperature as a plain tensor
created with torch.tensor(..., requires_grad=True) and hands it to the optimizer
next to the encoders' parameters.  It has no history because it is a leaf we
want to learn; the loss built from it and from the encoders has a real graph,
so backward() updates the encoders and the temperature.  Prints OK.

Modelled on: none found
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, in_dim, out_dim=16):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(in_dim, 32), nn.GELU(), nn.Linear(32, out_dim))

    def forward(self, x):
        return F.normalize(self.proj(x), dim=-1)


class ContrastiveTrainer:
    def __init__(self, img_dim=20, txt_dim=12, lr=5e-3):
        self.image_encoder = Encoder(img_dim)
        self.text_encoder = Encoder(txt_dim)
        self.logit_scale = torch.tensor(math.log(1 / 0.07), requires_grad=True)
        params = list(self.image_encoder.parameters()) + list(self.text_encoder.parameters())
        self.optimizer = torch.optim.AdamW([{"params": params},
                                            {"params": [self.logit_scale], "weight_decay": 0.0}], lr=lr)

    def clip_loss(self, img, txt):
        scale = self.logit_scale.exp().clamp(max=100)
        logits = scale * self.image_encoder(img) @ self.text_encoder(txt).t()
        labels = torch.arange(len(img))
        return 0.5 * (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels))

    def train_step(self, img, txt):
        self.optimizer.zero_grad()
        loss = self.clip_loss(img, txt)
        loss.backward()
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    trainer = ContrastiveTrainer()
    img = torch.randn(8, 20)
    txt = torch.randn(8, 12)
    t0 = trainer.logit_scale.item()
    w0 = trainer.image_encoder.proj[0].weight.detach().clone()
    for step in range(5):
        print(f"step {step}: loss {trainer.train_step(img, txt):.4f}")
    assert trainer.logit_scale.item() != t0
    assert not torch.equal(w0, trainer.image_encoder.proj[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
