"""What the previous iteration of a loop certainly left in a name an event operates on.

At the top of a loop's body a rebound name holds the join of its value before the loop and
what the body leaves in it (see `Value.carries`). A leaf that requires grad joined with a
tensor the body computes from it is "requires grad, leafness unknown" (see
`facets.join_leaf`): true of the first iteration and of every later one alike. What is
certain is narrower: every iteration after the first sees what the previous one computed.
`carried_history` finds that tensor when it certainly has history, so a rule whose error
needs a non-leaf (`x.requires_grad = True` raises, `x.grad` is None) can report the use as
failing from the second iteration on.
"""

from __future__ import annotations

import ast

from gradguard.analysis.events import Event
from gradguard.analysis.names import dotted
from gradguard.analysis.torch_api import MAYBE_IDENTITY_METHODS
from gradguard.analysis.values import Carry


def carried_history(use: Event) -> Carry | None:
    """The value the previous iteration of a loop left in `use.target`, when it certainly
    has history: computed by a statement straight in the loop's body (so every iteration
    that goes on to the next ran it; no `continue` skips it) of a loop that runs `use` each
    iteration. None when no such loop carries the target."""
    key = dotted(use.target)
    for carry in use.value.carries:
        loop, stmt = carry.loop, carry.stmt
        if carry.key != key or loop is None or stmt is None or loop not in use.every_iteration:
            continue
        if not carry.value.has_history or not any(s is stmt for s in loop.body):
            continue
        if _may_return_itself(stmt):
            continue  # `image = image.float()` of a float leaf is that same leaf
        if any(isinstance(node, ast.Continue) for node in ast.walk(loop)):
            continue
        return carry
    return None


def _may_return_itself(stmt: ast.stmt) -> bool:
    """`x = x.to(device)`, `x = x.float()`: a cast or move that returns its receiver when it
    already has that dtype and device, so a leaf may stay the same leaf."""
    value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in MAYBE_IDENTITY_METHODS
    )
