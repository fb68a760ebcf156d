"""A per-point loss scaled for mixed precision and backpropagated unreduced (GG501).

Modelled on https://github.com/WisconsinAIVision/MaskPoint/issues/7: a point-cloud
pretraining runner calls backward() on a loss that is not a single number and fails with
"grad can be implicitly created only for scalar outputs". This runner trains with a
`GradScaler`, as mixed-precision runners do: `scaler.scale(loss)` multiplies the loss by a
plain factor, so it keeps the loss's shape (and its autograd facts), and the scaled
per-point loss fails the same way. The look-alike reduces the loss before scaling it.
"""

import torch
from torch import nn

POINTS, FEATURES = 32, 3


class PointDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(FEATURES, 16), nn.ReLU(), nn.Linear(16, FEATURES))

    def forward(self, points):
        return self.mlp(points)


def run_net(steps=2, reduce=False):
    model = PointDecoder()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    for _ in range(steps):
        points = torch.randn(POINTS, FEATURES)
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = nn.functional.mse_loss(model(points), points, reduction="none")
        if reduce:
            scaler.scale(loss.mean()).backward()
        else:
            scaler.scale(loss).backward()  # expect: GG501
        scaler.step(optimizer)
        scaler.update()


if __name__ == "__main__":
    try:
        run_net()
        raise SystemExit("the unreduced scaled loss backpropagated")
    except RuntimeError as error:
        assert "only for scalar outputs" in str(error), error
    run_net(reduce=True)
    print("ok")
