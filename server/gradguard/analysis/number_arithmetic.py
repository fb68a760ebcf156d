"""What Python arithmetic on two numbers the analysis knows gives: that number.

`step = max_value // n_bins` of the known ints 8 and 4 is the int 2, and `torch.arange(0,
max_value, step)` of ints makes an int64 tensor; `width / 2` of an int is a float. Python's
arithmetic on ints, floats and bools is exact and does not depend on anything but its
operands, so the result is as certain as they are (`True + 1` is the int 2, `7 // 2` the
int 3, `7 / 2` the float 3.5, `2 ** -1` the float 0.5). What Python would raise on
(`1 // 0`) or what is not a plain number (`(-8) ** 0.5` is complex) stays unknown, and so
does a power too large to compute cheaply or a float that overflowed: only ints of at most
64 bits and finite floats are kept.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

_OPERATORS: dict[type[ast.operator], Callable[[object, object], object]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
# The largest exponent a power is computed for (`2 ** 64` is already past what is kept).
_LARGEST_EXPONENT = 64
_LARGEST_INT_BITS = 64


def is_number(value: object) -> bool:
    """A Python int, float or bool (the numbers whose arithmetic is folded)."""
    return type(value) in (int, float, bool)


def folded(op: ast.operator, left: object, right: object) -> int | float | None:
    """`left <op> right` of two known numbers, when Python certainly gives a plain number
    (an int of at most 64 bits or a finite float); None otherwise."""
    apply = _OPERATORS.get(type(op))
    if apply is None or not (is_number(left) and is_number(right)):
        return None
    if isinstance(op, ast.Pow) and abs(right) > _LARGEST_EXPONENT:  # type: ignore[arg-type]
        return None
    try:
        result = apply(left, right)
    except (ArithmeticError, ValueError):
        return None
    if type(result) is int:
        return result if result.bit_length() <= _LARGEST_INT_BITS else None
    if type(result) is float:
        return result if math.isfinite(result) else None
    return None  # a complex power
