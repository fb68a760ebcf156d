"""How many modules a container built by a comprehension over a known range holds.

`nn.ModuleList([Block(d) for _ in range(3)])`, `nn.ModuleList(Block(d) for i in range(3))`
and `nn.Sequential(*[Block(d) for _ in range(3)])` hold exactly three modules: a list
comprehension or generator expression with a single `for` over the builtin `range(...)`
and no `if` clause yields one item per number of the range, and the container takes each
item as one module (or raises: `ModuleList`/`Sequential` reject an item that is not a
module). The range's bounds must be known ints (`range(k)` with `k` a literal, a constant
or an `__init__` default every construction leaves out, `range(1, 4)`; see
`loop_entry.range_length`); a range of known bounds leaving no number gives 0. Anything
else is not known (None): a bound not known, an `if` clause (it may drop items), a second
`for`, an `async for`, a set comprehension (equal items merge), a `range` the file rebinds.

`nn.Sequential(*parts)` holds one module per plain argument plus the items of each
unpacked part, when every unpacked part is such a comprehension or a list or tuple written
out without starred entries.

The count is of the container as built: whether code of the file changes it later
(`append`, `del`, item stores) is asked where the count is used (see
`FunctionInterpreter._held_modules`).

Checked against Python semantics and torch 2.13.0: `len(nn.ModuleList([nn.ReLU() for _ in
range(3)]))` is 3, `len(nn.Sequential(*[nn.ReLU() for _ in range(0)]))` is 0.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from gradguard.analysis.loop_entry import range_call, range_length
from gradguard.analysis.values import Value


def comprehension_count(
    expr: ast.expr, lookup: Callable[[str], Value], *, range_is_builtin: bool
) -> int | None:
    """How many items the list comprehension or generator expression `expr` yields: the
    length of the known `range(...)` of its single `for` with no `if`; None otherwise.
    `lookup` gives the value a name or dotted key is bound to where `expr` is evaluated
    (the range of the first `for` is evaluated in the enclosing scope); `range_is_builtin`
    tells whether `range` is the builtin there."""
    if not isinstance(expr, ast.ListComp | ast.GeneratorExp) or len(expr.generators) != 1:
        return None
    loop = expr.generators[0]
    if loop.ifs or loop.is_async or not range_is_builtin:
        return None
    iterated = range_call(loop.iter)
    if iterated is None or any(isinstance(arg, ast.Starred) for arg in iterated.args):
        return None
    return range_length(iterated.args, lookup)


def unpacked_count(
    args: list[ast.expr], lookup: Callable[[str], Value], *, range_is_builtin: bool
) -> int | None:
    """How many modules `nn.Sequential(*args)` (no keyword) holds: one per plain argument,
    and per unpacked part the items of a comprehension counted by `comprehension_count` or
    of a list or tuple written out without starred entries; None when one part is not
    known."""
    total = 0
    for arg in args:
        if not isinstance(arg, ast.Starred):
            total += 1
            continue
        part = arg.value
        if isinstance(part, ast.List | ast.Tuple):
            if any(isinstance(e, ast.Starred) for e in part.elts):
                return None
            total += len(part.elts)
            continue
        count = comprehension_count(part, lookup, range_is_builtin=range_is_builtin)
        if count is None:
            return None
        total += count
    return total
