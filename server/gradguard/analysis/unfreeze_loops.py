"""Loops that unfreeze parameters chosen by their names, which the analysis can follow.

`for name, p in model.named_parameters(): if name.startswith("fc"): p.requires_grad = True`
turns `requires_grad` back on for the parameters whose names pass the loop's tests. Whether it
unfreezes any parameter of a frozen module depends on the names that module's parameters may
have (`parameter_names`), known only when the loop runs in the dataflow pass.

Such a loop (an *unfreeze loop*) has the shape of a filtered freeze loop (`for <name>, <p> in
<owner>.named_parameters():`, no `else`, a body binding neither name nor defining anything),
and holds `<p>.requires_grad = True`, `<p>.requires_grad_(True)` or `<p>.requires_grad_()` as
a statement of its body or of `if` blocks in it (an *excused* unfreeze). Text that may unfreeze
elsewhere turns every frozen fact of the file off (`parameters.may_unfreeze`); an excused
unfreeze does not. Instead every unfreeze loop of the file must be found, by the pass that
makes the facts, to unfreeze none of the parameters of the module it runs over, in every run
of it the pass makes (`certain_unfreezes`); else the file is analysed again without frozen
facts (`gradguard.analysis.model`). The runs of a function's body the pass makes stand for
every call of it (its parameters hold what every caller passes, or are not known), so a loop
found harmless in each of them is harmless in the program.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.parameter_names import rebinds, unfreezes_parameter
from gradguard.analysis.walk import module_nodes_of

Loop = ast.For | ast.AsyncFor
Span = tuple[tuple[int, int], tuple[int, int]]


def loop_parameter(loop: Loop) -> str | None:
    """`p` of `for name, p in <owner>.named_parameters():` of the shape an unfreeze loop
    has (see the module docs); None for any other loop."""
    iterable, target = loop.iter, loop.target
    if not (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr == "named_parameters"
        and not iterable.args
        and not iterable.keywords
        and not loop.orelse
        and isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and isinstance(target.elts[0], ast.Name)
        and isinstance(target.elts[1], ast.Name)
        and target.elts[0].id != target.elts[1].id
    ):
        return None
    if rebinds(loop.body, {target.elts[0].id, target.elts[1].id}):
        return None
    return target.elts[1].id


def _excused(body: list[ast.stmt], parameter: str) -> Iterable[ast.stmt]:
    """The unfreezes of `parameter` among the statements of `body` and of its `if` blocks."""
    for stmt in body:
        if unfreezes_parameter(stmt, parameter):
            yield stmt
        elif isinstance(stmt, ast.If):
            yield from _excused(stmt.body, parameter)
            yield from _excused(stmt.orelse, parameter)


@cached_by_node
def unfreeze_loops(tree: ast.Module) -> tuple[tuple[Loop, tuple[ast.stmt, ...]], ...]:
    """Every unfreeze loop of the file, with its excused unfreezes."""
    found = []
    for loop in module_nodes_of(tree, ast.For, ast.AsyncFor):
        assert isinstance(loop, ast.For | ast.AsyncFor)
        parameter = loop_parameter(loop)
        if parameter is None:
            continue
        excused = tuple(_excused(loop.body, parameter))
        if excused:
            found.append((loop, excused))
    return tuple(found)


def is_unfreeze_loop(tree: ast.Module, loop: Loop) -> bool:
    """Whether `loop` is an unfreeze loop of the file."""
    return any(found is loop for found, _ in unfreeze_loops(tree))


def excused_spans(tree: ast.Module) -> list[Span]:
    """Where the excused unfreezes of the file lie: (line, column) of their start and
    end, sorted."""
    return sorted(
        ((stmt.lineno, stmt.col_offset), (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0))
        for _, excused in unfreeze_loops(tree)
        for stmt in excused
    )


def certain_unfreezes(tree: ast.Module, verdicts: Iterable[tuple[Loop, bool]]) -> bool:
    """Whether every unfreeze loop of the file ran in the pass (`verdicts`: each run of a
    loop, with whether it certainly unfreezes none of its owner's parameters) and no run of
    it may unfreeze one."""
    loops = unfreeze_loops(tree)
    if not loops:
        return True
    seen: dict[int, bool] = {}
    for loop, certain in verdicts:
        seen[id(loop)] = seen.get(id(loop), True) and certain
    return all(seen.get(id(loop)) is True for loop, _ in loops)
