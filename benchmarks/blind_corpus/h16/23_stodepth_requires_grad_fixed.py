"""GG401: requires_grad toggled on a conv weight that is computed from other parameters.

A stochastic-depth ResNet freezes the residual branch of a dropped block by writing
`self.conv1.weight.requires_grad = False` (and back to True when the block survives). The
convolutions are weight-normalised (torch.nn.utils.parametrizations.weight_norm), so
`conv.weight` is not a leaf Parameter but a tensor recomputed from `original0`/`original1`
(the same happens to replicas under nn.DataParallel). Its requires_grad flag cannot be set.
Torch raises: RuntimeError: you can only change requires_grad flags of leaf variables.

Modelled on: https://github.com/shamangary/Pytorch-Stochastic-Depth-Resnet/issues/2

FIXED VERSION: requires_grad is toggled on the conv modules' leaf parameters.
"""
import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import weight_norm


def conv3x3(in_planes, out_planes, stride=1):
    return weight_norm(nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride,
                                 padding=1, bias=False))


class StoDepth_BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, prob, multFlag, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
        self.prob = prob
        self.m = torch.distributions.bernoulli.Bernoulli(torch.tensor([self.prob]))
        self.multFlag = multFlag

    def _set_branch_trainable(self, flag):
        for p in list(self.conv1.parameters()) + list(self.conv2.parameters()):  # fixed: GG401
            p.requires_grad = flag

    def _branch(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        return self.bn2(self.conv2(out))

    def forward(self, x):
        identity = x.clone()
        if self.downsample is not None:
            identity = self.downsample(x)
        if self.training:
            if torch.equal(self.m.sample(), torch.ones(1)):
                self._set_branch_trainable(True)
                out = self._branch(x) + identity
            else:
                self._set_branch_trainable(False)
                out = identity
        else:
            out = self._branch(x)
            out = self.prob * out + identity if self.multFlag else out + identity
        return self.relu(out)


class ResNet_StoDepth(nn.Module):
    def __init__(self, block, prob_0_L, multFlag, layers, num_classes=10):
        super().__init__()
        self.inplanes = 16
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU(inplace=True)
        self.prob_now = prob_0_L[0]
        self.prob_step = (prob_0_L[0] - prob_0_L[1]) / (sum(layers) - 1)
        self.multFlag = multFlag
        self.layer1 = self._make_layer(block, 16, layers[0])
        self.layer2 = self._make_layer(block, 32, layers[1], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(32 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes, 1, stride=stride, bias=False),
                                       nn.BatchNorm2d(planes))
        layers = [block(self.prob_now, self.multFlag, self.inplanes, planes, stride, downsample)]
        self.prob_now -= self.prob_step
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.prob_now, self.multFlag, self.inplanes, planes))
            self.prob_now -= self.prob_step
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def resnet_stodepth(prob_0_L=(1.0, 0.5), multFlag=True):
    return ResNet_StoDepth(StoDepth_BasicBlock, prob_0_L, multFlag, [2, 2])


def main():
    torch.manual_seed(0)
    model = resnet_stodepth()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    criterion = nn.CrossEntropyLoss()
    for it in range(3):
        x, y = torch.randn(8, 3, 16, 16), torch.randint(0, 10, (8,))
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"iter {it}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
