"""A 6D-pose training script built from the test code: the network predicts per-bin scores
for the x, y and z coordinates, the script takes `torch.argmax` of each, stacks them,
rescales to [-1, 1] and computes the loss on that; `loss.backward()` raises "element 0 of
tensors does not require grad and does not have a grad_fn". The author's answer: argmax is
not differentiable, take the loss before it (on the scores).

Source (rewritten in our own words, structure kept): https://github.com/LZGMatrix/BOP19_CDPN_2019ICCV/issues/4
"""

import torch
from torch import nn


class CoordinateHead(nn.Module):
    def __init__(self, bins: int = 8) -> None:
        super().__init__()
        self.x = nn.Conv2d(3, bins, 1)
        self.y = nn.Conv2d(3, bins, 1)
        self.z = nn.Conv2d(3, bins, 1)

    def forward(self, image):
        return self.x(image), self.y(image), self.z(image)


def train_step(model, optimizer, image, target_coor, bins=8):
    output_coor_x_, output_coor_y_, output_coor_z_ = model(image)
    output_coor_x_ = output_coor_x_.squeeze()
    output_coor_y_ = output_coor_y_.squeeze()
    output_coor_z_ = output_coor_z_.squeeze()
    output_coor_ = torch.stack(
        [
            torch.argmax(output_coor_x_, axis=0),  # expect: GG108
            torch.argmax(output_coor_y_, axis=0),
            torch.argmax(output_coor_z_, axis=0),
        ],
        axis=2,
    )
    output_coor_ = 2.0 * output_coor_.float() / (bins - 1.0) - 1.0
    loss = nn.functional.l1_loss(output_coor_, target_coor)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def train_step_on_scores(model, optimizer, image, target_bins):
    output_coor_x_, output_coor_y_, output_coor_z_ = model(image)
    loss = (
        nn.functional.cross_entropy(output_coor_x_, target_bins[:, 0])
        + nn.functional.cross_entropy(output_coor_y_, target_bins[:, 1])
        + nn.functional.cross_entropy(output_coor_z_, target_bins[:, 2])
    )
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        coords = torch.stack([torch.argmax(o, dim=1) for o in (output_coor_x_, output_coor_y_, output_coor_z_)])
    return coords


def single_argmax(model, optimizer, image, target):
    scores = model(image)[0].squeeze()
    coords = torch.argmax(scores, axis=0).float()  # expect: GG108
    loss = ((coords - target) ** 2).mean()
    loss.backward()
    optimizer.step()


head = CoordinateHead()
opt = torch.optim.SGD(head.parameters(), lr=0.1)
img = torch.randn(1, 3, 4, 4)
try:
    train_step(head, opt, img, torch.rand(4, 4, 3))
except RuntimeError as error:
    assert "does not require grad" in str(error)
train_step_on_scores(head, opt, img, torch.randint(0, 8, (1, 3, 4, 4)))
try:
    single_argmax(head, opt, img, torch.rand(4, 4))
except RuntimeError as error:
    assert "does not require grad" in str(error)
