"""Passes of a loop over a few known elements, one element at a time.

A loop over a dict's items binds each value in turn:

    losses = {"recon": recon_loss, "lr": 1e-3}
    for name, value in losses.items():
        if torch.is_tensor(value):
            value = value.cpu().numpy()      # raises on the pass binding `recon_loss`

The analysis runs a loop's body on what every pass has in common (`values.element_of`):
here a tensor that requires grad joined with a float, which is neither, so the test and the
conversion are unknown. But the iterable's elements are known one by one (a tuple or list
written out, `d.values()` / `d.items()` of a dict whose every key is known, see
`Value.elements`), and Python binds each of them on its own pass, in order. So a pass is
also run for each distinct element, from the state every pass starts from (the loop's head,
which holds for every pass), with the loop variable bound to that element alone: what a
statement of that pass does with it is what the statement does when that pass reaches it.

Such a pass records the events rules judge one run at a time, each on its own and once per
place (`PASS_EVENTS`: what a loss, a checkpoint or a numpy conversion is given, the events a
run in context records too, see `context_runs`); nothing else of it is kept. Other events
stay those of the pass run for what the elements share, so a rule that counts events per
place (or has its own per-element check, as GG402's `_integer_elements_asked`) sees each
once.

A pass is only followed as far as the analysis knows it goes: the events of such a pass
(`events`) are those of statements the pass certainly reaches once it starts (Python runs
a block's statements in order). An `if` whose test is not known on that pass, a nested loop
(which may run no iteration), a `try`, `while` or `match` end the pass there: what comes
after may be skipped on that pass, by a `continue` for instance. A `break`, `continue`,
`return` or `raise` reached ends it too. A statement that raises on an earlier pass stops
the loop before a later one; the analysis takes the passes as running, as it takes every
statement before a finding as running.

`element_passes` gives the elements a `for` loop's passes are run for (see the conditions
there); the interpreter runs them (`StatementInterpreter._element_passes`).
"""

from __future__ import annotations

import ast

from gradguard.analysis.events import CheckpointInput, Conversion, Event, LossInput
from gradguard.analysis.values import Kind, Value

# The events a pass for one element records (see the module docs).
PASS_EVENTS: frozenset[type[Event]] = frozenset({LossInput, CheckpointInput, Conversion})

# The most elements a loop is run element by element for (more: only what they share).
MOST_ELEMENTS = 8

# Statements that end a pass run for one element: what follows may not run on that pass.
UNSURE_STATEMENTS: tuple[type[ast.stmt], ...] = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Try,
    getattr(ast, "TryStar", ast.Try),
    ast.Match,
)


def element_passes(loop: ast.For | ast.AsyncFor, iterated: Value) -> tuple[Value, ...] | None:
    """The distinct values `loop`'s variable takes, one per pass, when `loop` is a plain
    `for` over a tuple, list or dict view whose elements are all known and at most
    `MOST_ELEMENTS` (`Value.elements`, in order); None for any other loop, and when every
    element is the same (the pass run for what they share is that pass)."""
    if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name | ast.Tuple):
        return None
    elements = iterated.elements
    if iterated.kind is not Kind.SEQUENCE or iterated.fields is not None or not elements:
        return None
    if len(elements) > MOST_ELEMENTS:
        return None
    each = tuple(dict.fromkeys(e.with_origin(None) for e in elements))
    return each if len(each) > 1 else None
