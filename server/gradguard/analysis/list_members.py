"""Values a list certainly holds, when its length is not known: `list(model.parameters()) +
[w]` holds `w`, whatever the parameters are.

`a + b` of two lists is a new list holding every element of `a`, then every element of `b`
(Python's list concatenation; a list and a tuple or a generator raise TypeError instead, so
the interpreter asks it only of operands that are certainly lists: a list display or
comprehension, `list(...)`, another such concatenation). Of operands whose elements are
known only on one side, the result's length is unknown but the known elements, and the
members of the other, are certainly among its elements (`Structure.members`). A later
change of the list (`remove`, `pop`, an item stored or deleted) may take one out: a reader
asks whether code may change the container (`ModuleInterpreter.container_may_change`)
before relying on them.

`a + b` of two sequences whose every item is known at most (`list(G.parameters()) +
list(D.parameters())`, also through names bound to them) is a sequence whose every item is
at most the join of both sides' (`joined_items`): whatever types the two are, `+` either
raises (a list and a tuple) or gives each element of one, then each of the other.
"""

from __future__ import annotations

from gradguard.analysis.values import Kind, Value, join

# Methods of a list that take elements out of it.
SHRINKING = frozenset({"remove", "pop", "clear"})
# ... and those that may take elements out or move them to other indices.
TAKING_OUT = SHRINKING | {"sort", "reverse"}


def concatenated(first: Value, second: Value) -> Value | None:
    """The list `first + second` of two lists, when at least one side
    knows some of what it holds: of unknown length, with every element known on either
    side, and every member, as a member. None for anything else (two lists of known
    elements give a list of known elements, built by the caller)."""
    if first.kind is not Kind.SEQUENCE or second.kind is not Kind.SEQUENCE:
        return None
    held = (*_held(first), *_held(second))
    if not held:
        return None
    return Value(kind=Kind.SEQUENCE, members=held, carries=first.carries | second.carries)


def _held(value: Value) -> tuple[Value, ...]:
    """What a list certainly holds: its elements when known (not a mapping's values), else
    its members."""
    if value.elements is not None and value.fields is None:
        return value.elements
    return value.members or ()


def taken_from(sequence: Value) -> Value:
    """A list after `remove`, `pop`, `clear`, `sort`, `reverse` or `del seq[i]`: which
    elements it still holds, and where, is no longer known (its known elements and members
    are dropped), but each element is still at most what any element was (`items`)."""
    held = sequence.items
    for element in sequence.elements or ():
        held = join(held, element) if held is not None else element
    return Value(
        kind=Kind.SEQUENCE,
        items=held.with_origin(None) if held is not None else None,
        carries=sequence.carries,
        origin=sequence.origin,
    )


def joined_items(first: Value, second: Value) -> Value | None:
    """The sequence `first + second` of two sequences, when at least one side is of unknown
    length with known items (`Structure.items`) and the other's items or elements are known:
    of unknown length, every item at most the join of them all (iterating it binds one of
    them). None for anything else, and for a named tuple or a mapping on either side."""
    sides = (first, second)
    if any(v.kind is not Kind.SEQUENCE or v.fields is not None for v in sides):
        return None
    if all(v.items is None for v in sides):
        return None
    held: Value | None = None
    for side in sides:
        parts = (side.items,) if side.items is not None else side.elements
        if parts is None:
            return None
        for part in parts:
            held = part if held is None else join(held, part)
    if held is None:
        return None
    return Value(
        kind=Kind.SEQUENCE, items=held.with_origin(None), carries=first.carries | second.carries
    )
