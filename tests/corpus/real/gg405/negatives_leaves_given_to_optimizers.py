"""The fixed versions: the leaf is created after scaling or directly on the device.

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/pytorch/issues/140469 - the maintainer's answer: keep the leaf
  that was created with requires_grad=True and give that to the optimizer.
* https://github.com/vinsis/ternary-quantization/issues/4 - the reporter's fix: `device=device`
  in the factory.
* https://github.com/mazzzystar/randomCNN-voice-transfer/issues/16 - the fix commit: move first,
  then set requires_grad.
"""

import torch


def init_synthetic(num_classes, ipc, channel, im_size, lr_img, device):
    image_syn = (torch.randn(size=(num_classes * ipc, channel, im_size[0], im_size[1]), device=device) * 0.01).requires_grad_(True)
    optimizer_img = torch.optim.SGD([image_syn], lr=lr_img, momentum=0.5)
    return image_syn, optimizer_img


def init_synthetic_unscaled(num_classes, ipc, channel, im_size, lr_img, device):
    image_syn = torch.randn(size=(num_classes * ipc, channel, im_size[0], im_size[1]), dtype=torch.float, requires_grad=True, device=device)
    optimizer_img = torch.optim.SGD([image_syn], lr=lr_img, momentum=0.5)
    return image_syn, optimizer_img


def make_scaling_optimizer(weights_to_be_quantized, device):
    scaling_factors = [torch.ones(2, requires_grad=True, device=device) for _ in range(len(weights_to_be_quantized))]
    optimizer_sf = torch.optim.Adam(scaling_factors, lr=1e-4)
    return scaling_factors, optimizer_sf


def style_transfer_setup(content_shape, learning_rate, device):
    a_G_var = torch.randn(content_shape).to(device)
    a_G_var.requires_grad = True
    optimizer = torch.optim.Adam([a_G_var], lr=learning_rate)
    return a_G_var, optimizer
