"""GG402 - integer shift index wrapped in nn.Parameter (requires_grad defaults to True).

Shift-GCN block for skeleton action recognition: the spatial shift is a fixed
gather index built with numpy, stored on the module as
``nn.Parameter(torch.from_numpy(index_array))``. The index is int64 and
nn.Parameter asks for requires_grad=True by default, which integer tensors cannot
have, so building the model raises
  RuntimeError: Only Tensors of floating point and complex dtype can require
  gradients

Modelled on: https://github.com/kchengiva/Shift-GCN/issues/29
"""
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ARG = {"num_class": 5, "num_point": 25, "num_person": 1, "in_channels": 3,
       "frames": 16, "batch_size": 4, "base_lr": 0.1, "num_epoch": 1}


class Shift_tcn(nn.Module):
    def __init__(self, in_channels, out_channels, stride=1):
        super().__init__()
        self.bn = nn.BatchNorm2d(in_channels)
        self.temporal_linear = nn.Conv2d(in_channels, out_channels, 1)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU()
        self.stride = stride

    def forward(self, x):
        x = self.bn(x)
        x = self.relu(self.temporal_linear(x))
        return self.bn2(x[:, :, ::self.stride])


class Shift_gcn(nn.Module):
    def __init__(self, in_channels, out_channels, num_point):
        super().__init__()
        self.in_channels, self.out_channels, self.num_point = in_channels, out_channels, num_point
        self.down = (nn.Sequential(nn.Conv1d(in_channels, out_channels, 1), nn.BatchNorm1d(out_channels))
                     if in_channels != out_channels else nn.Identity())
        self.Linear_weight = nn.Parameter(torch.zeros(in_channels, out_channels))
        nn.init.normal_(self.Linear_weight, 0, math.sqrt(1.0 / out_channels))
        self.Linear_bias = nn.Parameter(torch.zeros(1, 1, out_channels))
        self.Feature_Mask = nn.Parameter(torch.ones(1, num_point, in_channels))
        self.bn = nn.BatchNorm1d(num_point * out_channels)
        self.relu = nn.ReLU()

        index_array = np.empty(num_point * in_channels, dtype=np.int64)
        for i in range(num_point):
            for j in range(in_channels):
                index_array[i * in_channels + j] = (i * in_channels + j + j * in_channels) % (in_channels * num_point)
        self.shift_in = nn.Parameter(torch.from_numpy(index_array))  # bug: GG402

        index_array = np.empty(num_point * out_channels, dtype=np.int64)
        for i in range(num_point):
            for j in range(out_channels):
                index_array[i * out_channels + j] = (i * out_channels + j - j * out_channels) % (out_channels * num_point)
        self.shift_out = nn.Parameter(torch.from_numpy(index_array), requires_grad=False)

    def forward(self, x0):
        n, c, t, v = x0.size()
        x = x0.permute(0, 2, 3, 1).contiguous().view(n * t, v * c)
        x = torch.index_select(x, 1, self.shift_in).view(n * t, v, c)
        x = x * (torch.tanh(self.Feature_Mask) + 1)
        x = torch.einsum("nwc,cd->nwd", x, self.Linear_weight) + self.Linear_bias
        x = x.view(n * t, -1)
        x = torch.index_select(x, 1, self.shift_out)
        x = self.bn(x).view(n, t, v, self.out_channels).permute(0, 3, 1, 2)
        res = self.down(x0.permute(0, 3, 1, 2).reshape(n * v, c, t)) if not isinstance(self.down, nn.Identity) else None
        if res is not None:
            x = x + res.view(n, v, self.out_channels, t).permute(0, 2, 3, 1)
        else:
            x = x + x0
        return self.relu(x)


class TCN_GCN_unit(nn.Module):
    def __init__(self, in_channels, out_channels, num_point, stride=1):
        super().__init__()
        self.gcn1 = Shift_gcn(in_channels, out_channels, num_point)
        self.tcn1 = Shift_tcn(out_channels, out_channels, stride=stride)

    def forward(self, x):
        return self.tcn1(self.gcn1(x))


class Model(nn.Module):
    def __init__(self, num_class, num_point, num_person, in_channels):
        super().__init__()
        self.data_bn = nn.BatchNorm1d(num_person * in_channels * num_point)
        self.l1 = TCN_GCN_unit(in_channels, 16, num_point)
        self.l2 = TCN_GCN_unit(16, 32, num_point, stride=2)
        self.fc = nn.Linear(32, num_class)

    def forward(self, x):
        n, c, t, v, m = x.size()
        x = x.permute(0, 4, 3, 1, 2).contiguous().view(n, m * v * c, t)
        x = self.data_bn(x).view(n, m, v, c, t).permute(0, 1, 3, 4, 2).contiguous().view(n * m, c, t, v)
        x = self.l2(self.l1(x))
        x = x.view(n, m, x.size(1), -1).mean(3).mean(1)
        return self.fc(x)


class Processor:
    def __init__(self, arg):
        self.arg = arg
        self.model = Model(arg["num_class"], arg["num_point"], arg["num_person"], arg["in_channels"])
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=arg["base_lr"], momentum=0.9, nesterov=True)
        self.loss = nn.CrossEntropyLoss()

    def load_data(self):
        a = self.arg
        data = torch.randn(8, a["in_channels"], a["frames"], a["num_point"], a["num_person"])
        label = torch.randint(0, a["num_class"], (8,))
        return DataLoader(TensorDataset(data, label), batch_size=a["batch_size"], shuffle=True)

    def train(self, epoch, loader):
        self.model.train()
        for batch_idx, (data, label) in enumerate(loader):
            output = self.model(data)
            loss = self.loss(output, label)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            acc = (output.argmax(1) == label).float().mean().item()
            print(f"epoch {epoch} batch {batch_idx}: loss {loss.item():.4f} acc {acc:.2f}")

    def start(self):
        loader = self.load_data()
        for epoch in range(self.arg["num_epoch"]):
            self.train(epoch, loader)


if __name__ == "__main__":
    try:
        torch.manual_seed(0)
        Processor(ARG).start()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
