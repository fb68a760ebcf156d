"""What a function looks like from its callers: `FunctionSummary`."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gradguard.analysis.graph import SavedNode
from gradguard.analysis.model import (
    InPlaceOnSaved,
)
from gradguard.analysis.values import (
    Carry,
    Value,
)

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class FunctionSummary:
    """A function as seen from its callers.

    `state_reads` are `self.<attr>` values the method reads before assigning them (with the
    reading expression); `state_writes` the values it leaves in `self.<attr>` on return.
    Together they let a caller see module state carried from one call to the next.
    """

    returned: Value
    state_reads: dict[str, tuple[ast.expr, Carry]] = field(default_factory=dict)
    state_writes: dict[str, Value] = field(default_factory=dict)
    # A module's `forward`: a stand-in graph node per input parameter. Graph nodes are
    # must-facts, so one in the returned value means every path computes it from that input,
    # and a caller's output then runs through the input's own history.
    input_nodes: dict[str, SavedNode] = field(default_factory=dict)
    # Every other function: a tag per parameter (see `FunctionInterpreter.enter_function`).
    param_tags: dict[str, Carry] = field(default_factory=dict)
    # In-place changes of saved tensors that every backward through the result trips over.
    changed_in_result: tuple[InPlaceOnSaved, ...] = ()
    # What the function appends to lists kept on `self` (`self.history.append(loss)`), by
    # attribute, joined over every append (see `gradguard.analysis.appended_state`).
    appended: dict[str, Value] = field(default_factory=dict)
