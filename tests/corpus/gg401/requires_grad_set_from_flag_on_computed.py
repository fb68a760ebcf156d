"""The requires_grad setter on a computed tensor, with a flag that is not a literal.

pytorch/pytorch pull request #163263 sets out how the setter and the method differ on a
tensor with a grad_fn: `b.requires_grad = True` and `b.requires_grad = False` both raise
"you can only change requires_grad flags of leaf variables", and so does
`b.requires_grad_(False)`, while `b.requires_grad_(True)` returns `b` as it is, grad_fn and
all (checked with torch 2.13.0). So the setter fails whatever value it is given, a variable
flag included (`feats.requires_grad = finetune`), and calling the method first does not
turn the computed tensor into a leaf the setter may then change.

Look-alikes: the method on a computed tensor (a no-op), the setter on a detached copy, on a
tensor computed under no_grad (no history) and on a real leaf, all with the same flag.
"""

import torch

proj = torch.ones(4, 4, requires_grad=True)


def features(x, finetune):
    feats = x @ proj
    feats.requires_grad = finetune  # expect: GG401
    return feats


def features_method_then_setter(x):
    feats = x @ proj
    feats.requires_grad_()  # returns `feats` unchanged: still not a leaf
    feats.requires_grad = True  # expect: GG401
    return feats


def features_method(x):
    feats = x @ proj
    return feats.requires_grad_()


def features_detached(x, finetune):
    feats = (x @ proj).detach()
    feats.requires_grad = finetune
    return feats


def features_no_grad(x, finetune):
    with torch.no_grad():
        feats = x @ proj
    feats.requires_grad = finetune
    return feats


def fresh_leaf(finetune):
    leaf = torch.zeros(4)
    leaf.requires_grad = finetune
    return leaf


if __name__ == "__main__":
    x = torch.ones(2, 4)
    for flag in (True, False):
        try:
            features(x, flag)
        except RuntimeError as error:
            assert "only change requires_grad flags of leaf variables" in str(error)
        else:
            raise AssertionError("expected the flag change to fail")
    try:
        features_method_then_setter(x)
    except RuntimeError as error:
        assert "only change requires_grad flags of leaf variables" in str(error)
    else:
        raise AssertionError("expected the flag change to fail")
    kept = features_method(x)
    assert not kept.is_leaf and kept.grad_fn is not None
    for flag in (True, False):
        assert features_detached(x, flag).requires_grad is flag
        assert features_no_grad(x, flag).requires_grad is flag
        assert fresh_leaf(flag).requires_grad is flag
