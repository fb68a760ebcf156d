"""GG402 look-alike: integer masks next to requires_grad, but only float tensors require grad.

A pruning-aware linear layer keeps the hard integer connectivity mask as a buffer and a
learnable soft mask as nn.Parameter(mask.float()); the position encoding table is built
with torch.arange(...) (int64) and converted to float before requires_grad_() is called.
Every tensor that requires grad has a floating dtype. Correct code.

Modelled on: https://github.com/jiasenlu/NeuralBabyTalk/issues/26 (integer mask kept on
a module, done the right way)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import Parameter

CONFIG = {"in_features": 12, "out_features": 6, "keep_ratio": 0.5, "seq_len": 5, "steps": 5}


class MaskedLinear(nn.Module):
    def __init__(self, in_features, out_features, keep_ratio):
        super().__init__()
        self.weight = Parameter(torch.randn(out_features, in_features) * 0.1)
        self.bias = Parameter(torch.zeros(out_features))
        hard = (torch.rand(out_features, in_features) < keep_ratio).to(torch.uint8)
        self.register_buffer("hard_mask", hard)
        self.soft_mask = Parameter(hard.float())

    def forward(self, x):
        mask = torch.sigmoid(self.soft_mask * 4.0) * self.hard_mask
        return F.linear(x, self.weight * mask, self.bias)


class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        pos = torch.arange(cfg["seq_len"]).unsqueeze(1).float() / cfg["seq_len"]
        self.pos_table = Parameter(pos.repeat(1, cfg["in_features"]).requires_grad_())
        self.layer = MaskedLinear(cfg["in_features"], cfg["out_features"], cfg["keep_ratio"])

    def forward(self, x):
        return self.layer(x + self.pos_table).mean(1)


def main():
    torch.manual_seed(0)
    cfg = CONFIG
    model = Model(cfg)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    labels = torch.tensor([0, 3, 5, 1], dtype=torch.long)
    x = torch.randn(4, cfg["seq_len"], cfg["in_features"])
    for step in range(cfg["steps"]):
        loss = F.cross_entropy(model(x), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"final loss {loss.item():.4f}")
    assert model.layer.hard_mask.dtype == torch.uint8 and not model.layer.hard_mask.requires_grad
    assert model.layer.soft_mask.grad is not None


if __name__ == "__main__":
    main()
    print("OK")
