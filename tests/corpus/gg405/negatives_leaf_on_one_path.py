"""Optimizers handed a tensor that is a leaf on one path and computed on another: no GG405.

Modelled on https://github.com/mazzzystar/randomCNN-voice-transfer/issues/16 (an input
made with `requires_grad=True`, then moved to the GPU: "can't optimize a non-leaf Tensor",
but only when running on GPU) and on https://github.com/pytorch/pytorch/issues/140469 (a
synthetic image made as `torch.randn(..., requires_grad=True) * 0.01`). Here the
computing step runs on one branch only: scaling an initial image when a scale is given,
a blend of two leaves only when asked for, a conditional expression. On the path that
skips it the optimizer gets the leaf itself and builds fine, so GG405 cannot be certain
(the optimizer raises only on the other path). What holds on every path (the tensor
requires grad) is still known; that is what `.numpy()` needs, not what the optimizer
rule needs.
"""

import torch


def distilled_images(num_images, scale=None):
    images = torch.randn(num_images, 3, 8, 8, requires_grad=True)
    if scale is not None:
        images = images * scale
    return torch.optim.SGD([images], lr=0.1, momentum=0.5)


def style_input(content, from_noise):
    start = torch.rand_like(content, requires_grad=True)
    blended = start if from_noise else 0.5 * start + 0.5 * content
    return torch.optim.Adam([blended], lr=0.01), blended


def embedding_table(rows, normalise):
    table = torch.empty(rows, 4).normal_().requires_grad_()
    if normalise:
        table = table / table.norm(dim=1, keepdim=True)
    else:
        pass
    optimizer = torch.optim.SGD([{"params": [table], "lr": 0.05}])
    return optimizer, table


if __name__ == "__main__":
    first = distilled_images(4)
    second, image = style_input(torch.zeros(3, 8, 8), from_noise=True)
    third, table = embedding_table(5, normalise=False)
    assert image.is_leaf and table.is_leaf
    for optimizer in (first, second, third):
        assert len(optimizer.param_groups[0]["params"]) == 1
    for build in (
        lambda: distilled_images(4, scale=0.01),
        lambda: style_input(torch.zeros(3, 8, 8), from_noise=False),
        lambda: embedding_table(5, normalise=True),
    ):
        try:
            build()
        except ValueError as error:
            assert "can't optimize a non-leaf Tensor" in str(error), error
        else:
            raise AssertionError("the computing path built an optimizer")
    print("leaf paths built their optimizers; computing paths raised")
