"""FizzBuzz network with input-saliency: requires_grad set on a computed input.

Modelled on: https://github.com/hhsecond/HandsOnDeepLearningWithPytorch/issues/2 (counterpart)

Look-alike: ``requires_grad = True`` is assigned to a tensor that was computed
(encoded, converted with ``.type(dtype)`` and normalised), like the weights in
the report. But nothing it was computed from requires grad, so it is still a
leaf and the assignment is legal; it is used to read the saliency of the
input bits after backward().
"""
import numpy as np
import torch
import torch.nn as nn


def binary_encode(nums, width=10):
    return np.array([[int(b) for b in "{0:b}".format(n).zfill(width)] for n in nums])


def fizzbuzz_label(n):
    return 0 if n % 15 == 0 else 1 if n % 5 == 0 else 2 if n % 3 == 0 else 3


class FizBuzNet(nn.Module):
    def __init__(self, input_size=10, hidden_size=32, output_size=4):
        super().__init__()
        self.hidden = nn.Linear(input_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        return self.out(torch.sigmoid(self.hidden(x)))


def input_saliency(net, nums, dtype):
    raw = torch.from_numpy(binary_encode(nums)).type(dtype)
    x = (raw - raw.mean(0)) / (raw.std(0) + 1e-6)
    x.requires_grad = True
    logits = net(x)
    labels = torch.tensor([fizzbuzz_label(n) for n in nums])
    nn.functional.cross_entropy(logits, labels).backward()
    return x.grad.abs().mean(0)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = FizBuzNet().double()
    sal = input_saliency(net, list(range(1, 101)), torch.DoubleTensor)
    assert sal.shape == (10,)
    print("OK")
