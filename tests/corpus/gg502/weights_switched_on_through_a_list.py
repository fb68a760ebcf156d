"""`.numpy()` of a hand-made weight switched on through a list of weights (GG502).

A character-level MLP written without nn.Module keeps its weights as plain tensors, turns on
`requires_grad` for each of them in `for p in parameters:`, trains, and then takes the
learned embedding to numpy to scatter it. The loop changed the listed tensors themselves:
`C` is a leaf that requires grad, and `C.numpy()` raises "Can't call numpy() on Tensor that
requires grad". Written for GradGuard after the shape of the makemore lectures
(karpathy/nn-zero-to-hero, makemore part 2 at 73c3fcc, which plots `C.data` instead). The
fixed twin detaches first; a loop that only changes the values (`p.data += step`) leaves
the weights as they were.
"""

import torch
import torch.nn.functional as F


def trained(X, Y, steps=3):
    g = torch.Generator().manual_seed(0)
    C = torch.randn((27, 2), generator=g)
    W = torch.randn((6, 27), generator=g)
    parameters = [C, W]
    for p in parameters:
        p.requires_grad = True
    for _ in range(steps):
        loss = F.cross_entropy(C[X].view(X.shape[0], -1) @ W, Y)
        for p in parameters:
            p.grad = None
        loss.backward()
        for p in parameters:
            p.data += -0.1 * p.grad
    return C


def embedding_coordinates(X, Y):
    C = torch.randn((27, 2))
    W = torch.randn((6, 27))
    parameters = [C, W]
    for p in parameters:
        p.requires_grad = True
    loss = F.cross_entropy(C[X].view(X.shape[0], -1) @ W, Y)
    loss.backward()
    for p in parameters:
        p.data += -0.1 * p.grad
    return C.numpy()  # expect: GG502


def embedding_coordinates_fixed(X, Y):
    C = torch.randn((27, 2))
    W = torch.randn((6, 27))
    parameters = [C, W]
    for p in parameters:
        p.requires_grad = True
    loss = F.cross_entropy(C[X].view(X.shape[0], -1) @ W, Y)
    loss.backward()
    for p in parameters:
        p.data += -0.1 * p.grad
    return C.detach().numpy()


if __name__ == "__main__":
    X = torch.randint(0, 27, (16, 3))
    Y = torch.randint(0, 27, (16,))
    trained(X, Y)
    try:
        embedding_coordinates(X, Y)
    except RuntimeError as error:
        assert "Can't call numpy() on Tensor that requires grad" in str(error), error
    else:
        raise AssertionError("numpy() of a weight that requires grad ran")
    assert embedding_coordinates_fixed(X, Y).shape == (27, 2)
    print("numpy() of the listed weight raised; the fixed twin ran")
