"""What a test of whether an object is a tensor answers, when the object's kind is known.

`torch.is_tensor(x)` and `isinstance(x, torch.Tensor)` hold exactly when `x` is a
`torch.Tensor` (a subclass such as `nn.Parameter` included). The analysis knows that of a
value of kind `TENSOR`; it knows the opposite of a Python number, `None`, a tuple, list or
dict, a module, a function or class of the file, and of what it marks as certainly not a
tensor (`Kind.OTHER`: strings, arrays, lists from `.tolist()`). An instance of a class of
the file (which may subclass `torch.Tensor`) and anything unknown give no answer.
"""

from __future__ import annotations

from gradguard.analysis.values import Grad, Kind, Value

# The qualified names of the classes `isinstance(x, C)` answers for (`torch.Tensor`).
TENSOR_CLASSES = frozenset({"torch.Tensor"})
# The functions that test it (`torch.is_tensor(x)`).
TENSOR_TESTS = frozenset({"torch.is_tensor"})

_NOT_TENSORS = frozenset(
    {
        Kind.SCALAR,
        Kind.NONE,
        Kind.SEQUENCE,
        Kind.MAPPING,
        Kind.MODULE,
        Kind.FUNCTION,
        Kind.CLASS,
        Kind.OTHER,
    }
)


def is_tensor(value: Value) -> bool | None:
    """Whether `value` is certainly a tensor (True), certainly not one (False), or either
    (None)."""
    if value.kind is Kind.TENSOR:
        return True
    return False if value.kind in _NOT_TENSORS else None


def tensor_test(value: Value) -> Value | None:
    """The bool `torch.is_tensor(value)` gives, as a known constant; None when unknown."""
    answer = is_tensor(value)
    return None if answer is None else Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR, const=answer)
