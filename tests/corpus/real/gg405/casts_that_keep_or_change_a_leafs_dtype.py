"""A dtype cast of a leaf is a new, non-leaf tensor only when the dtype changes.

Source (rewritten in our own words): https://github.com/pytorch/pytorch/issues/10065 - a user
cast a leaf made with `requires_grad=True` with `.type(torch.float)` and got no gradient in the
cast; the maintainers' answer: a cast that changes the dtype is a differentiable copy, a new
non-leaf tensor. Checked against torch 2.13.0: a cast to the dtype the tensor already has
returns the tensor itself, still the leaf; so `.float()` of a float32 leaf is a leaf the
optimizer accepts, `.double()` of it is not ("can't optimize a non-leaf Tensor").
"""

import torch


# A float32 leaf cast to float32 (the default dtype): the same leaf.
def float_copy_of_a_float_leaf(lr):
    weights = torch.randn(4, 2, requires_grad=True).float()
    return weights, torch.optim.SGD([weights], lr=lr)


# A float64 leaf cast to float64 by name: the same leaf.
def double_leaf_kept_double(lr):
    bias = torch.zeros(2, dtype=torch.float64, requires_grad=True).to(torch.double)
    return bias, torch.optim.Adam([bias], lr=lr)


# A float leaf made from float literals, cast to float32: the same leaf.
def literal_leaf_cast_to_float(lr):
    scale = torch.tensor([1.0, 0.5], requires_grad=True).to(dtype=torch.float32)
    return scale, torch.optim.SGD([scale], lr=lr)


# A float32 leaf cast to float64: a copy with a grad_fn, which the optimizer refuses.
def double_copy_of_a_float_leaf(lr):
    weights = torch.randn(4, 2, requires_grad=True).double()  # expect: GG405
    return weights, torch.optim.SGD([weights], lr=lr)


if __name__ == "__main__":
    for make in (float_copy_of_a_float_leaf, double_leaf_kept_double, literal_leaf_cast_to_float):
        tensor, _ = make(0.1)
        assert tensor.is_leaf and tensor.requires_grad, make.__name__
    try:
        double_copy_of_a_float_leaf(0.1)
    except ValueError as error:
        assert "non-leaf" in str(error)
    else:
        raise SystemExit("the float64 copy was accepted")
    print("ok")
