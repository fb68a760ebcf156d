"""`.numpy()` on a tensor that requires grad on every path, a leaf on one (GG502).

Modelled on https://github.com/pytorch/pytorch/issues/140469: synthetic images for dataset
distillation made with `requires_grad=True` and scaled only when a scale is given, then
turned into numpy to be saved. Whether the images are the leaf or the scaled tensor, they
require grad, so `.numpy()` raises "Can't call numpy() on Tensor that requires grad" on
both paths, even though an optimizer over them is only refused on the scaled one (see
tests/corpus/gg405/negatives_leaf_on_one_path.py). The fixed twin detaches first.
"""

import torch


def saved_images(num_images, scale=None):
    images = torch.randn(num_images, 3, 8, 8, requires_grad=True)
    if scale is not None:
        images = images * scale
    optimizer = torch.optim.SGD([images], lr=0.1) if scale is None else None
    return optimizer, images.numpy()  # expect: GG502


def saved_images_fixed(num_images, scale=None):
    images = torch.randn(num_images, 3, 8, 8, requires_grad=True)
    if scale is not None:
        images = images * scale
    return images.detach().numpy()


if __name__ == "__main__":
    for scale in (None, 0.01):
        try:
            saved_images(2, scale)
        except RuntimeError as error:
            assert "Can't call numpy() on Tensor that requires grad" in str(error), error
        else:
            raise AssertionError("numpy() of a tensor requiring grad ran")
        assert saved_images_fixed(2, scale).shape == (2, 3, 8, 8)
    print("numpy() raised on both paths; the fixed twin ran")
