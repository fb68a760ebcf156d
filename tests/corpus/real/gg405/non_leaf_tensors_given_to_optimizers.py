"""Tensors scaled or moved after requires_grad=True, then handed to an optimizer (GG405).

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/pytorch/issues/140469 - dataset distillation: the synthetic images
  are `torch.randn(..., requires_grad=True, device=...) * 0.01` and go to `torch.optim.SGD`.
* https://github.com/vinsis/ternary-quantization/issues/4 - one pair of scaling factors per
  quantized weight, `torch.ones(2, requires_grad=True).to(device)` in a list comprehension.
* https://github.com/mazzzystar/randomCNN-voice-transfer/issues/16 - the generated spectrogram
  `torch.randn(..., requires_grad=True)` moved to the GPU before `torch.optim.Adam([a_G_var])`.
"""

import torch


# Source: pytorch#140469, the distillation script's synthetic data.
def init_synthetic(num_classes, ipc, channel, im_size, lr_img, device):
    image_syn = torch.randn(size=(num_classes * ipc, channel, im_size[0], im_size[1]), dtype=torch.float, requires_grad=True, device=device) * 0.01  # expect: GG405
    label_syn = torch.arange(num_classes).repeat_interleave(ipc)
    optimizer_img = torch.optim.SGD([image_syn], lr=lr_img, momentum=0.5)
    return image_syn, label_syn, optimizer_img


# Source: ternary-quantization#4, scaling factors for every quantized layer.
def make_scaling_optimizer(weights_to_be_quantized, device):
    scaling_factors = [torch.ones(2, requires_grad=True).to(device) for _ in range(len(weights_to_be_quantized))]  # missed: GG405
    optimizer_sf = torch.optim.Adam(scaling_factors, lr=1e-4)
    return scaling_factors, optimizer_sf


# Source: randomCNN-voice-transfer#16, train.py: the tensor being optimised is the output audio.
def style_transfer_setup(content_shape, learning_rate, device):
    a_G_var = torch.randn(content_shape, requires_grad=True).to(device)  # expect: GG405
    optimizer = torch.optim.Adam([a_G_var], lr=learning_rate)
    return a_G_var, optimizer
