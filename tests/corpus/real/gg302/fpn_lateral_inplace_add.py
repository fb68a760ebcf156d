"""A crowd-counting FPN head that builds the lateral feature maps with convolution + ReLU
and then merges them top-down with `laterals[i - 1] += F.interpolate(laterals[i], ...)`:
the in-place add changes a ReLU output that autograd saved (relu keeps its result for its
backward), and `loss.backward()` raises "one of the variables needed for gradient
computation has been modified by an inplace operation: [torch.FloatTensor [1, 6, 8, 8]],
which is output 0 of Relu, is at version 1; expected version 0 instead" (checked with torch
2.13.0: `FpnHead` fails, `FpnHeadFixed` trains). It is a real bug in this form: `+=` on a
list item calls the tensor's in-place add. Building the ReLU without `inplace=True` does
not help; the answer in the thread: write `laterals[i - 1] = laterals[i - 1] + ...`.

Source (rewritten in our own words, structure kept): https://github.com/lyongo/NWPU-MOC/issues/4
- `models/FPN/FPN_Head.py`: lateral convolutions in an `nn.ModuleList`, a list of laterals
built by a comprehension, a reversed loop adding the upsampled coarser level.

Still missed: the changed tensor is an item of a list built by a comprehension, read with a
computed index. The analysis knows only what every item of such a list has in common (each
is kept by "the" relu of the comprehension), so it cannot tell which item changed; marking
them all would also flag a backward through an item nobody changed. Named tensors (as in
`two_level_merge`) are caught.
"""

import torch
import torch.nn.functional as F
from torch import nn


class FpnHead(nn.Module):
    def __init__(self, in_channels=(4, 8), out_channels: int = 6) -> None:
        super().__init__()
        self.lateral_convs = nn.ModuleList(nn.Conv2d(c, out_channels, 1) for c in in_channels)

    def forward(self, inputs):
        laterals = [F.relu(conv(inputs[i])) for i, conv in enumerate(self.lateral_convs)]
        for i in range(len(laterals) - 1, 0, -1):
            prev_shape = laterals[i - 1].shape[2:]
            laterals[i - 1] += F.interpolate(laterals[i], size=prev_shape, mode="nearest")  # missed: GG302
        return laterals[0]


class FpnHeadFixed(nn.Module):
    def __init__(self, in_channels=(4, 8), out_channels: int = 6) -> None:
        super().__init__()
        self.lateral_convs = nn.ModuleList(nn.Conv2d(c, out_channels, 1) for c in in_channels)

    def forward(self, inputs):
        laterals = [F.relu(conv(inputs[i])) for i, conv in enumerate(self.lateral_convs)]
        for i in range(len(laterals) - 1, 0, -1):
            prev_shape = laterals[i - 1].shape[2:]
            laterals[i - 1] = laterals[i - 1] + F.interpolate(laterals[i], size=prev_shape, mode="nearest")
        return laterals[0]


def two_level_merge(conv_fine, conv_coarse, fine, coarse):
    """The same merge with the two levels named: the ReLU output is changed in place."""
    lateral_fine = F.relu(conv_fine(fine))
    lateral_coarse = F.relu(conv_coarse(coarse))
    lateral_fine += F.interpolate(lateral_coarse, size=lateral_fine.shape[2:], mode="nearest")  # expect: GG302
    lateral_fine.mean().backward()


def two_level_merge_fixed(conv_fine, conv_coarse, fine, coarse):
    lateral_fine = F.relu(conv_fine(fine))
    lateral_coarse = F.relu(conv_coarse(coarse))
    merged = lateral_fine + F.interpolate(lateral_coarse, size=lateral_fine.shape[2:], mode="nearest")
    merged.mean().backward()


def train(head, batches, epochs):
    optimizer = torch.optim.SGD(head.parameters(), lr=0.01)
    for epoch in range(epochs):
        for features, density in batches:
            optimizer.zero_grad()
            loss = ((head(features) - density) ** 2).mean()
            loss.backward()
            optimizer.step()


feats = [torch.randn(1, 4, 8, 8), torch.randn(1, 8, 4, 4)]
data = [(feats, torch.randn(1, 6, 8, 8))]
try:
    train(FpnHead(), data, 1)
except RuntimeError as error:
    assert "modified by an inplace operation" in str(error)
train(FpnHeadFixed(), data, 1)
c1, c2 = nn.Conv2d(4, 6, 1), nn.Conv2d(8, 6, 1)
try:
    two_level_merge(c1, c2, feats[0], feats[1])
except RuntimeError as error:
    assert "modified by an inplace operation" in str(error)
two_level_merge_fixed(c1, c2, feats[0], feats[1])
