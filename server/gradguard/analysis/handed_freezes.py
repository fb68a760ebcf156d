"""Which parameters of a function name the module it freezes whole: `def freeze(m):
m.requires_grad_(False)`, `def set_frozen(module): for p in module.parameters():
p.requires_grad = False`.

Such a helper freezes whatever module its caller hands it, whichever module that is. Its
summary (`FunctionSummary.frozen_parameters`) can only tell when the function's own run
knows the module (every caller handing it the same one); a helper called on several layers
(`freeze(model.embed)`, `freeze(model.encoder)`) learns a join of them and freezes nothing
it knows. A run of it with one call's arguments does (`ContextRun.frozen`): this module
says which functions are worth such a run, from their text alone.

A parameter counts when a statement of the function's own body (not nested in a block, so
it runs on every way through unless a `return` comes first, which the run decides) is
`<name>.requires_grad_(False)` or a loop freezing every parameter of `<name>`
(`parameters.freeze_loop_owner`), `<name>` a parameter of the function.
"""

from __future__ import annotations

import ast

from gradguard.analysis import parameters as params
from gradguard.analysis.names import kept_parameters
from gradguard.analysis.node_cache import cached_by_node


@cached_by_node
def freezing_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The parameters of `function` whose module a statement of its own body freezes whole
    (see the module docstring); empty for any other function."""
    names = kept_parameters(function)
    found: set[str] = set()
    for stmt in function.body:
        owner = params.frozen_whole(stmt)
        if isinstance(owner, ast.Name) and owner.id in names:
            found.add(owner.id)
    return frozenset(found)
