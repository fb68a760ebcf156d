"""Loops that certainly run their body at least once, and how many times at least.

`least_trips` is the number of items iterating a value certainly yields (0 when unknown):
the length of a known dict, tuple or list (written out or known entry by entry), of the
builtin `range(...)` with known int bounds, or of a tensor's known first dimension. A loop
over `range(accum_steps)` with `accum_steps = 4` runs its body four times each time it is
reached. `certainly_entered` is `least_trips(...) >= 1`.

One fact serves two uses. The interpreter leaves such a loop only through its body (the
state from before the loop is not one of its exits), and `every_iteration` facts ("this
statement runs on every iteration of that loop"), which stop at an inner loop because it
may run zero times, go through an inner loop that cannot. A `for` loop certainly runs when
it iterates over:

* a written-out list or tuple with an element that is not starred (`for x in [a, b]`);
* a dict, tuple or list whose entries the analysis knows and has at least one
  (`for key in losses:` with `losses = {"ce": ..., "mse": ...}`), or a known dict's
  `.items()`, `.keys()` or `.values()`;
* the builtin `range(...)` (not a name the file rebinds) with bounds that are int literals,
  their negations, or names, attributes (`self.n_critic`) or entries of known dicts and
  tuples (`hp["g_steps"]`, with `hp` a dict of literals every caller passes) holding ints on
  every path, leaving at least one number (`range(10)`, `range(1, n_steps)` with
  `n_steps = 5`, `range(5, 0, -1)`);
* a tensor whose whole shape is known, with a first dimension of at least one.

A loop filling a list that starts empty and that `torch.stack`/`torch.cat` take after it
is entered on every path going on past that call, for another reason (see
`stacked_lists`).

Checked against Python semantics: iterating a non-empty dict, tuple, list or range yields at
least one item; changing a dict's size while iterating raises; iterating a tensor yields its
first dimension's slices.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from gradguard.analysis.names import dotted
from gradguard.analysis.values import Kind, Value

if TYPE_CHECKING:
    from gradguard.analysis.events import LoopTrips

_MAPPING_VIEWS = frozenset({"items", "keys", "values"})


def certainly_entered(
    iterable: ast.expr,
    value: Value,
    lookup: Callable[[str], Value],
    *,
    range_is_builtin: bool,
) -> bool:
    """True when iterating `iterable` (evaluated to `value`) yields at least one item.
    `lookup` gives the value bound to a name or dotted key here; `range_is_builtin` tells
    whether `range` is the builtin in this scope."""
    return least_trips(iterable, value, lookup, range_is_builtin=range_is_builtin) >= 1


def least_trips(
    iterable: ast.expr,
    value: Value,
    lookup: Callable[[str], Value],
    *,
    range_is_builtin: bool,
) -> int:
    """How many items iterating `iterable` (evaluated to `value`) certainly yields at least;
    0 when that is unknown (or it yields none). Same arguments as `certainly_entered`."""
    known = max(_entries(value), _tensor_rows(value))
    if isinstance(iterable, ast.List | ast.Tuple):
        known = max(known, sum(not isinstance(e, ast.Starred) for e in iterable.elts))
    if not isinstance(iterable, ast.Call) or iterable.keywords:
        return known
    func = iterable.func
    if isinstance(func, ast.Name) and func.id == "range":
        bounds = _range_bounds(iterable.args, lookup) if range_is_builtin else None
        return max(known, _length(*bounds)) if bounds is not None else known
    if isinstance(func, ast.Attribute) and func.attr in _MAPPING_VIEWS and not iterable.args:
        key = dotted(func.value)
        receiver = lookup(key) if key is not None else None
        if receiver is not None and receiver.kind is Kind.MAPPING:
            return max(known, _entries(receiver))
    return known


def fewest_trips(events: Iterable[LoopTrips], loop: ast.AST) -> int:
    """How many times `loop` certainly runs its body each time it is reached: the fewest
    trips of the `LoopTrips` events the recorded pass gave it (each reach of the loop there,
    with what every caller passes); 0 when it has none."""
    trips = [e.trips for e in events if e.node is loop and e.context is None]
    return min(trips) if trips else 0


def certainly_empty(
    iterable: ast.expr,
    value: Value,
    lookup: Callable[[str], Value],
    *,
    range_is_builtin: bool,
) -> bool:
    """True when iterating `iterable` (evaluated to `value`) certainly runs no iteration: a
    known empty sequence or dict, an empty literal (or one of `*names` of such), or the
    builtin `range` with known int bounds leaving no number or a zero step (which raises
    before the first one)."""
    if value.kind in (Kind.MAPPING, Kind.SEQUENCE) and value.elements == ():
        return True
    if isinstance(iterable, ast.List | ast.Tuple | ast.Set):
        return all(
            isinstance(e, ast.Starred)
            and isinstance(e.value, ast.Name)
            and lookup(e.value.id).kind in (Kind.MAPPING, Kind.SEQUENCE)
            and lookup(e.value.id).elements == ()
            for e in iterable.elts
        )
    if isinstance(iterable, ast.Dict):
        return not iterable.keys
    call = range_call(iterable)
    if not range_is_builtin or call is None:
        return False
    bounds = _range_bounds(call.args, lookup)
    return bounds is not None and not _yields(*bounds)


def _entries(value: Value) -> int:
    """The number of entries of a dict or tuple/list value whose entries are known; else 0."""
    if value.kind in (Kind.MAPPING, Kind.SEQUENCE) and value.elements:
        return len(value.elements)
    return 0


def _tensor_rows(value: Value) -> int:
    """The first dimension of a tensor whose whole shape is known: iterating it yields that
    many slices (checked against torch 2.13.0: `for x in torch.randn(4, 2)` runs four times;
    a 0-dim tensor raises instead of yielding nothing); else 0."""
    shape = value.shape
    if value.kind is not Kind.TENSOR or not shape.exact or not shape.dims:
        return 0
    first = shape.dims[0]
    return first if first is not None and first >= 1 else 0


def _range_bounds(
    args: list[ast.expr], lookup: Callable[[str], Value]
) -> tuple[int, int, int] | None:
    """(start, stop, step) of `range(...)` given one to three known ints; None otherwise."""
    if not 1 <= len(args) <= 3:
        return None
    known = [_int_constant(arg, lookup) for arg in args]
    bounds = [b for b in known if b is not None]
    if len(bounds) != len(known):
        return None
    if len(bounds) == 1:
        bounds = [0, *bounds]
    if len(bounds) == 2:
        bounds.append(1)
    start, stop, step = bounds
    return start, stop, step


def _length(start: int, stop: int, step: int) -> int:
    """How many numbers such a range yields (0 for a zero step, which raises), computed
    without building it (huge bounds overflow len())."""
    if step > 0 and start < stop:
        return (stop - start + step - 1) // step
    if step < 0 and start > stop:
        return (start - stop - step - 1) // -step
    return 0


def _yields(start: int, stop: int, step: int) -> bool:
    """Whether such a range yields a number. Compared, never built: `range(a, b, 0)` raises
    (before yielding anything), and huge bounds overflow len()."""
    return (step > 0 and start < stop) or (step < 0 and start > stop)


def _int_constant(expr: ast.expr, lookup: Callable[[str], Value]) -> int | None:
    """The int an expression certainly is: a literal, its negation, or a name, attribute or
    entry of a known dict or tuple bound to one (whatever the path)."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _int_constant(expr.operand, lookup)
        return -inner if inner is not None else None
    if isinstance(expr, ast.Constant):
        value: object = expr.value
    else:
        known = _bound_value(expr, lookup)
        if known is None:
            return None
        value = known.const
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _bound_value(expr: ast.expr, lookup: Callable[[str], Value]) -> Value | None:
    """What a name or attribute chain (`n`, `self.n_critic`) is bound to here, or an entry,
    read with a literal key, of a dict or tuple whose entries are known (`hp["g_steps"]`,
    `sizes[0]`); None for any other expression."""
    if isinstance(expr, ast.Name | ast.Attribute):
        key = dotted(expr)
        return lookup(key) if key is not None else None
    if not isinstance(expr, ast.Subscript) or not isinstance(expr.slice, ast.Constant):
        return None
    base = _bound_value(expr.value, lookup)
    if base is None or base.elements is None:
        return None
    position: object = expr.slice.value
    if base.kind is Kind.MAPPING and base.fields is not None:
        if position in base.fields:
            return base.elements[base.fields.index(position)]
        return None
    if (
        base.kind is Kind.SEQUENCE
        and isinstance(position, int)
        and not isinstance(position, bool)
        and -len(base.elements) <= position < len(base.elements)
    ):
        return base.elements[position]
    return None


def known_range(args: list[ast.expr], lookup: Callable[[str], Value]) -> range | None:
    """The numbers `range(*args)` yields, when its one to three bounds are known ints (see
    `least_trips`); None otherwise, and for a zero step (which raises)."""
    bounds = _range_bounds(args, lookup)
    if bounds is None or bounds[2] == 0:
        return None
    return range(*bounds)


def known_int(expr: ast.expr, lookup: Callable[[str], Value]) -> int | None:
    """The int `expr` certainly is here: a literal, its negation, or a name, attribute or
    known entry bound to one on every path (see `least_trips`)."""
    return _int_constant(expr, lookup)


def range_length(args: list[ast.expr], lookup: Callable[[str], Value]) -> int | None:
    """How many numbers `range(*args)` yields when its one to three bounds are known ints
    (see `least_trips`); None otherwise, and for a zero step (which raises). Computed without
    building the range (huge bounds overflow len())."""
    bounds = _range_bounds(args, lookup)
    if bounds is None or bounds[2] == 0:
        return None
    return _length(*bounds)


def range_call(iterable: ast.expr) -> ast.Call | None:
    """`range(...)` called with positional arguments only (whether `range` is the builtin
    there is the caller's question); None for anything else."""
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and not iterable.keywords
    ):
        return iterable
    return None
