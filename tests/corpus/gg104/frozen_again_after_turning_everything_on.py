"""A detector's freeze loop turns every parameter on, then off for the listed blocks.

As in YOLO training scripts, each parameter is first made trainable and then frozen when its
name holds one of the freeze prefixes. The prefixes are written for a deeper model and here
name every block the detector has, so the loop freezes all of it and the first backward()
raises "element 0 of tensors does not require grad". The on-then-off loop is the one
discussed in https://github.com/ultralytics/yolov5/issues/1213.
"""

import torch
from torch import nn

FREEZE = ["stem.", "stage1.", "stage2.", "detect."]


class SmallDetector(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.stage1 = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.stage2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.detect = nn.Conv2d(16, classes + 4, 1)

    def forward(self, images):
        features = torch.relu(self.stage2(torch.relu(self.stage1(torch.relu(self.stem(images))))))
        return self.detect(features)


def build(classes):
    detector = SmallDetector(classes)
    for key, value in detector.named_parameters():  # expect: GG104
        value.requires_grad = True
        if any(prefix in key for prefix in FREEZE):
            value.requires_grad = False
    return detector


detector = build(3)
optimizer = torch.optim.SGD(detector.parameters(), lr=0.01, momentum=0.9)
images, targets = torch.randn(2, 3, 16, 16), torch.randn(2, 7, 4, 4)
loss = nn.functional.mse_loss(detector(images), targets)
optimizer.zero_grad()
loss.backward()
optimizer.step()

if __name__ == "__main__":
    print("loss", loss.item())
