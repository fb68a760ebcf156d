"""`x.requires_grad = True` on a tensor computed from tensors that require grad (GG401).

Sources (rewritten in our own words, structure kept):
* https://github.com/Harry24k/adversarial-attacks-pytorch/issues/2 - DeepFool's `forward` loops
  over steps; the image it updated in the previous step (`image + r`) gets
  `image.requires_grad = True` again. Fixed by detaching.
* https://github.com/microsoft/tensorwatch/issues/25 - SmoothGrad adds noise to an input that
  already requires grad, then the vanilla explainer's `_backprop` sets `inp.requires_grad = True`.
* https://github.com/pytorch/pytorch/issues/3890 - `s = torch.sigmoid(x); s.requires_grad = True`
  to read `s.grad`, where `retain_grad()` was meant.
"""

import torch
from torch import nn


# Source: adversarial-attacks-pytorch#2, DeepFool.forward for one image.
class DeepFool:
    def __init__(self, model, steps=3, overshoot=0.02):
        self.model = model
        self.steps = steps
        self.overshoot = overshoot

    def forward(self, image, label):
        image = image.clone()
        for _ in range(self.steps):
            image.requires_grad = True  # expect: GG401
            fs = self.model(image)[0]
            if fs.argmax() != label:
                break
            grad = torch.autograd.grad(fs[label], image)[0]
            r = (1 + self.overshoot) * grad / grad.norm()
            image = image + r
        return image


# The same loop with the model built here: the perturbed image keeps its history.
def deepfool_linear(image, label, steps):
    model = nn.Linear(4, 3)
    image = image.clone()
    for _ in range(steps):
        image.requires_grad = True  # expect: GG401
        fs = model(image)[0]
        grad = torch.autograd.grad(fs[label], image)[0]
        image = image + 0.02 * grad / grad.norm()
    return image


# Source: tensorwatch#25, backprop.py: VanillaGrad._backprop and SmoothGrad.explain.
class VanillaGradExplainer:
    def __init__(self, model):
        self.model = model

    def _backprop(self, inp, ind):
        inp.requires_grad = True  # missed: GG401
        output = self.model(inp)
        grad_out = torch.zeros_like(output)
        grad_out[:, ind] = 1
        output.backward(grad_out)
        return inp.grad

    def explain(self, inp, ind):
        return self._backprop(inp, ind)


class SmoothGradExplainer:
    def __init__(self, base_explainer, stdev_spread=0.15, nsamples=3):
        self.base_explainer = base_explainer
        self.stdev_spread = stdev_spread
        self.nsamples = nsamples

    def explain(self, inp, ind):
        stdev = self.stdev_spread * (inp.max() - inp.min())
        total_gradients = 0
        for _ in range(self.nsamples):
            noise = torch.randn_like(inp) * stdev
            noisy_inp = inp + noise
            grad = self.base_explainer.explain(noisy_inp, ind)
            total_gradients = total_gradients + grad
        return total_gradients / self.nsamples


# Source: pytorch#3890, the reduction in the issue.
def sigmoid_gradient():
    x = torch.zeros(3, 3, requires_grad=True)
    s = torch.sigmoid(x)
    s.requires_grad = True  # expect: GG401
    total = torch.sum(s)
    total.backward()
    return s.grad
