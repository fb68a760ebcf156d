"""Python numbers taken out of tensors with history, followed where they travel.

`.item()`, `float()`, `.tolist()` and `.numpy()` of a tensor with history (a loss, a model's
output) give plain data: the conversion is why it has no history (a `CONVERSION` loss with
`converted_history`). That reason stays with what is computed from it and plain numbers
only: an item or a slice of the list or array (`scores.tolist()[i]`), the same numbers
copied or put in another order (`sorted(losses.tolist(), reverse=True)`, `list(a)`,
`tuple(a)`: Python's builtins make a new list or tuple of the very items they are given,
whatever `key=` orders them by), arithmetic with numbers
(`margin - (s[i] - s[j])`, handled by `combine`), `max`/`min`/`abs`/`round` of numbers, a
`sum` of the list. A tensor wrapped from such a number (`torch.tensor(total,
requires_grad=True)`) then knows that a real history was cut there (GG102, GG109).

Numbers of any other origin (literals, settings, data converted from fresh tensors, values
not known) give no reason here: what is computed from them stays as it was.
"""

from __future__ import annotations

from collections.abc import Sequence

from gradguard.analysis.values import Grad, Kind, Loss, LossKind, Value

__all__ = [
    "converted_from_history",
    "number_builtin",
    "part_of_converted",
    "plain_data",
    "rearranged",
]

# Builtins that give one of their number arguments, or a number computed from them only.
NUMBER_BUILTINS = frozenset({"max", "min", "abs", "round", "sum"})


def converted_from_history(value: Value) -> Loss | None:
    """The conversion of a tensor with history that `value`, plain data without history (not
    a tensor), certainly came out of; None for anything else."""
    loss = value.loss
    if value.grad is not Grad.UNTRACKED or value.kind is Kind.TENSOR or loss is None:
        return None
    if loss.kind is LossKind.CONVERSION and loss.converted_history:
        return loss
    return None


def part_of_converted(base: Value) -> Value | None:
    """An item of a list or array a conversion of a tensor with history made
    (`scores.tolist()[i]`, `out.detach().numpy()[0]`): a number or a part of that data,
    never a tensor, for the same reason. None when `base` is not such data."""
    loss = converted_from_history(base)
    if loss is None or base.kind is not Kind.OTHER:
        return None
    return Value(grad=Grad.UNTRACKED, kind=Kind.OTHER, loss=loss)


# Builtins that give a new list or tuple of the items of the one iterable they are given.
REARRANGING_BUILTINS = frozenset({"sorted", "list", "tuple"})


def rearranged(name: str, given: Value, positional: int) -> Value | None:
    """`sorted(s)`, `list(s)` or `tuple(s)` (`positional` is how many positional arguments
    the call passes; `sorted` may be given `key=` and `reverse=` besides) of data a
    conversion of a tensor with history made (`s = losses.tolist()`): the same numbers,
    data without history for that conversion. None when `given` is not such data."""
    if name not in REARRANGING_BUILTINS or positional != 1:
        return None
    return part_of_converted(given)


def number_builtin(name: str, args: Sequence[Value], single: bool) -> Value | None:
    """What `max`, `min`, `abs`, `round` or `sum` of plain numbers gives: a number without
    history (`max(n_pairs, 1)`); when some of it came out of a tensor with history
    (`max(0.0, margin - gap)`, `sum(s)` of `s = scores.tolist()`), data without history for
    that conversion. Every argument must be a number known not to require grad (a literal,
    a setting) or such data; `single`: the call has exactly one argument (`max(values)`,
    `abs(x)`). None otherwise."""
    if name not in NUMBER_BUILTINS or not args or (name == "sum" and not single):
        return None
    plain = plain_data(args)
    if plain is None or (plain.loss is None and name == "sum"):
        return None
    return plain


def plain_data(operands: Sequence[Value]) -> Value | None:
    """What arithmetic, or a builtin like `max`, on `operands` gives when each is a number
    known not to require grad or data out of a tensor with history, and one is the latter:
    data without history for that conversion (a number, or of unknown sort when an
    operand's sort is not known). Of numbers only: a number, for the first reason that is
    not a mere literal. None when some operand is neither."""
    reason: Loss | None = None
    kind = Kind.SCALAR
    for operand in operands:
        converted = converted_from_history(operand)
        if converted is not None:
            reason = reason or converted
            if operand.kind is not Kind.SCALAR and kind is not Kind.UNKNOWN:
                kind = Kind.UNKNOWN if operand.kind is Kind.UNKNOWN else Kind.OTHER
        elif operand.kind is not Kind.SCALAR or operand.grad is not Grad.UNTRACKED:
            return None
    if reason is None:
        losses = [v.loss for v in operands if v.loss is not None]
        reasons = [loss for loss in losses if loss.kind is not LossKind.LITERAL] or losses
        reason = reasons[0] if reasons else None
    return Value(grad=Grad.UNTRACKED, kind=kind, loss=reason)
