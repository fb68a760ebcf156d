"""Which statements of `__init__` one construction runs, in order.

`Block(8, 16, stride=2)` runs `__init__` once, with those arguments, and each of its `if`
statements takes one block: `if planes != inplanes or stride != 1:` takes its first block
and never the `else`, so `self.skip = nn.Conv2d(...)` there is the only store of
`self.skip` that instance ever ran, even though the class also has `self.skip = None` in
the `else`. The class scan of `__init__` (`ModuleInterpreter._collect_attributes_of`)
reads the taken block's statements as if they stood in `__init__`'s own body
(`taken_statements`), and leaves the stores of the block not taken out of its count of
each attribute's stores. The test is evaluated three-valued through `not`, `and` and `or`
(`holds`): `cin != cout or stride != 1` holds when `stride != 1` does.

A test is decided only when the scan's scratch run holds, for every name of `__init__` the
test reads, what `__init__` itself holds there: a parameter never bound again, or a local
bound once (`settled_test`). The scan only runs a part of `__init__`, so a name bound twice
(`stride = 1`, then `stride = 2` in a loop it skips) may hold something else when the test
runs. The test's value comes from the facts of the constructions the scan runs with: one
construction's own (`instance_state`), or those every construction agrees on. A value
that is not a known bool, number or string leaves the `if` to the scan as before.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping

# Parts of a test that bind names of their own (`:=`, a lambda, a comprehension).
_SCOPES = (ast.NamedExpr, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def settled_test(test: ast.expr, bindings: Mapping[str, int], held: Callable[[str], bool]) -> bool:
    """Whether every name `test` reads that `__init__` binds (`bindings`: its
    `local_binding_counts`) is bound there once and the scratch run holds it (`held`: it
    ran that binding), so the scratch run reads what the real run reads. A test binding a
    name itself (`:=`) or holding a nested scope (a lambda, a comprehension) is not
    settled."""
    nodes = list(ast.walk(test))
    if any(isinstance(node, _SCOPES) for node in nodes):
        return False
    names = {node.id for node in nodes if isinstance(node, ast.Name)}
    return all(bindings[n] == 1 and held(n) for n in names if n in bindings)


def truth(const: object) -> bool | None:
    """The truth value of a known constant (`bool`, `int`, `str`), None for anything else."""
    if type(const) in (bool, int, str):
        return bool(const)
    return None


def holds(test: ast.expr, const: Callable[[ast.expr], object]) -> bool | None:
    """The truth value of `test`, given the known constant of an expression (`const`):
    three-valued through `not`, `and` and `or`, so `cin != cout or stride != 1` is true
    when `stride != 1` is, whatever `cin != cout` is."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = holds(test.operand, const)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        decisive = isinstance(test.op, ast.Or)  # the value that settles the whole test
        parts = [holds(value, const) for value in test.values]
        if decisive in parts:
            return decisive
        return None if None in parts else not decisive
    return truth(const(test))


def taken_statements(
    body: list[ast.stmt],
    decide: Callable[[ast.expr], bool | None],
    whole: Callable[[ast.stmt], bool],
    dropped: Callable[[list[ast.stmt]], None],
) -> Iterator[ast.stmt]:
    """The statements of `body`, with each `if` whose test `decide` settles (True, False)
    replaced by the statements of the block it takes, in turn (nested ifs alike). `decide`
    is asked when the statements before the `if` have been handled, so it may read what
    they did. An `if` that `whole` claims is yielded as it is; `dropped` is handed each
    block not taken (its stores never run)."""
    for stmt in body:
        if isinstance(stmt, ast.If) and not whole(stmt):
            taken = decide(stmt.test)
            if taken is not None:
                dropped(stmt.orelse if taken else stmt.body)
                yield from taken_statements(
                    stmt.body if taken else stmt.orelse, decide, whole, dropped
                )
                continue
        yield stmt
