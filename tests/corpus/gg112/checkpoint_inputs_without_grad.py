"""GG112: reentrant checkpoints of trainable modules whose inputs do not require grad.

Modelled on https://github.com/pytorch/pytorch/issues/7617 (a Linear checkpointed on a
`torch.randn` input: the output has requires_grad=False), on
https://github.com/pytorch/pytorch/pull/37266 (features computed by frozen layers under
no_grad, then checkpointed) and on https://github.com/Lyken17/pytorch-memonger/issues/4
(every stage of a ResNet checkpointed, the first one on the raw images, so its parameters
never train). Written anew for this corpus.
"""

import torch
import torch.nn.functional as F
import torch.utils.checkpoint as cp
from torch import nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


class Stage(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.conv = nn.Conv2d(width, width, 3, padding=1)
        self.norm = nn.BatchNorm2d(width)

    def forward(self, x):
        return F.relu(self.norm(self.conv(x)))


class CheckpointedNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage1 = Stage(3)
        self.stage2 = Stage(3)
        self.fc = nn.Linear(3, 10)

    def forward(self, images):
        out = cp.checkpoint(self.stage1, images)  # missed: GG112
        out = cp.checkpoint(self.stage2, out)
        return self.fc(out.mean(dim=(2, 3)))


def linear_on_random_input():
    m = nn.Linear(4, 3)
    x = torch.randn(10, 4)
    z = checkpoint(m, x)  # expect: GG112
    print(z.requires_grad)
    z_lambda = checkpoint(lambda t: m(t), x)  # missed: GG112
    print(z_lambda.requires_grad)


def frozen_features_then_checkpoint(loader):
    extractor = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64))
    adapter = nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 64))
    classifier = nn.Linear(64, 5)
    opt = torch.optim.AdamW([*adapter.parameters(), *classifier.parameters()], lr=1e-4)
    for batch, labels in loader:
        with torch.no_grad():
            feats = extractor(batch)
        hidden = checkpoint(adapter, feats, use_reentrant=True)  # expect: GG112
        loss = F.cross_entropy(classifier(hidden), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()


def detached_context(tokens):
    memory = nn.Linear(8, 8)
    block = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
    context = memory(tokens).detach()
    out = checkpoint(block, context)  # expect: GG112
    # The second checkpoint is fed by the first: the same bug, reported once.
    out = checkpoint(block, out)
    return out.sum()


def whole_model_on_images(loader):
    model = CheckpointedNet()
    seq = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 16), nn.Linear(16, 2))
    x = torch.randn(4, 16)
    # checkpoint_sequential checkpoints every segment but the last: the first one trains not.
    y = checkpoint_sequential(seq, 2, x)  # missed: GG112
    for images, labels in loader:
        loss = F.cross_entropy(model(images), labels) + y.sum()
        loss.backward()
