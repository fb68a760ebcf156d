"""Dicts whose every key is known, and the dicts Python builds from them.

A dict display of string keys (`{"lr": 1e-3}`), `dict(lr=1e-3)` and the `**kwargs` a call
of a function of the file fills are MAPPING values whose keys are all known: `fields` names
them in insertion order and `elements` holds their values, with no `items` (a store under a
key not known here adds items, and then some key is unknown).

Merging such dicts is exact, as Python does it: `{**DEFAULTS, **kwargs}`, `dict(cfg,
lr=0.1)` and `{**cfg, "lr": 0.1}` hold every key of every part, a later part's value winning
and a key keeping the place it was first inserted at. When any part's keys are not all known
(an unknown dict, one filled by computed keys, a parameter no caller shows), the merge is
unknown too: `merged` gives None and the caller keeps what it knew before (nothing).
"""

from __future__ import annotations

from collections.abc import Iterable

from gradguard.analysis.values import Carry, Kind, Value


def exact_keys(value: Value) -> bool:
    """Every key of the dict `value` is known (a MAPPING with fields and elements, and no
    items added under keys not known here)."""
    return (
        value.kind is Kind.MAPPING
        and value.fields is not None
        and value.elements is not None
        and value.items is None
        and len(value.fields) == len(value.elements)
    )


def pairs_of(value: Value) -> list[tuple[str, Value]]:
    """The keys and values of a dict whose every key is known (see `exact_keys`)."""
    assert value.fields is not None and value.elements is not None
    return list(zip(value.fields, value.elements, strict=True))


def mapping_of(
    pairs: Iterable[tuple[str, Value]], carries: frozenset[Carry] = frozenset()
) -> Value:
    """The dict holding `pairs` in order (a key given twice keeps its first place and its
    last value, as a dict display does)."""
    held: dict[str, Value] = {}
    for key, value in pairs:
        held[key] = value
    return Value(
        kind=Kind.MAPPING, elements=tuple(held.values()), fields=tuple(held), carries=carries
    )


def merged(parts: Iterable[Value]) -> Value | None:
    """`{**a, **b}` / `dict(a, **b)` of dicts whose every key is known: one dict holding all
    their keys (later parts win), carrying what each part carried; None when some part's
    keys are not all known."""
    pairs: list[tuple[str, Value]] = []
    carries: frozenset[Carry] = frozenset()
    for part in parts:
        if not exact_keys(part):
            return None
        pairs.extend(pairs_of(part))
        carries |= part.carries
    return mapping_of(pairs, carries)
