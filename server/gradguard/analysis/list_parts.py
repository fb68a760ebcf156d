"""Parts of a list or tuple whose elements are known: a slice by literal bounds, and the
item an augmented assignment by a literal index changes.

A slice: `outs[1:]` of `outs = [torch.sigmoid(a), torch.sigmoid(b)]` holds exactly the
elements Python's slicing picks, `(outs[1],)`, when the slice's bounds and step are int
literals (negated or not) or left out. So `for o in outs[1:]:` certainly runs once (see
`loop_entry`), and binds `outs[1]`. Anything else (a name as a bound, a zero step, which
raises) is not known.

An augmented assignment of an item: `outs[0] += v` runs `outs.__setitem__(0,
outs[0].__iadd__(v))`, and a tensor's `__iadd__` changes the tensor in place (checked
against torch 2.13.0: `outs = [torch.sigmoid(w), torch.sigmoid(2 * w)]; outs[0] += 1;
outs[0].sum().backward()` raises "modified by an inplace operation"). So the item read at
that index is changed in place: `changed_item` tells which expression to read it by, when
the container is a list or tuple value (not a tensor, whose `x[0] += v` is a write into
`x`, nor a dict) and the index is an int literal.
"""

from __future__ import annotations

import ast

from gradguard.analysis.shapes import known_int
from gradguard.analysis.values import Kind, Value, evolve


def sliced_elements(elements: tuple[Value, ...], part: ast.Slice) -> tuple[Value, ...] | None:
    """The elements `seq[part]` holds, for a sequence of known `elements` and a slice whose
    bounds and step are int literals or left out; None when they are not known (or the step
    is zero, which raises ValueError)."""
    bounds: list[int | None] = []
    for node in (part.lower, part.upper, part.step):
        if node is None:
            bounds.append(None)
            continue
        known = known_int(node)
        if known is None:
            return None
        bounds.append(known)
    lower, upper, step = bounds
    if step == 0:
        return None
    return elements[lower:upper:step]


def changed_item(container: Value, target: ast.Subscript) -> bool:
    """Whether `target += v` (`outs[0] += v`) changes in place the item `target` reads: a
    list or tuple value read by an int literal index (what the item is, and whether it is
    a tensor, the value read at `target` tells)."""
    return container.kind is Kind.SEQUENCE and known_int(target.slice) is not None


def with_element(container: Value, index: ast.expr, stored: Value) -> Value | None:
    """The list after `seq[index] = stored` (or `seq[index] += v`, which stores the item's
    result back): its known elements with the one at an int literal `index` in range
    replaced. None for anything else: a list of unknown length, a mapping, a named tuple
    (whose fields would no longer name the elements' meaning), an index not known or out
    of range (which raises IndexError)."""
    elements = container.elements
    if container.kind is not Kind.SEQUENCE or elements is None or container.fields is not None:
        return None
    position = known_int(index)
    if position is None or not -len(elements) <= position < len(elements):
        return None
    replaced = list(elements)
    replaced[position] = stored.with_origin(None)
    return evolve(
        container, elements=tuple(replaced), carries=container.carries | stored.all_carries()
    )
