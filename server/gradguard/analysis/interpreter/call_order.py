"""The order in which a file's functions are analysed: callees before their callers.

A function's facts are recorded once, when its summary is first computed. A caller
analysed first computes its callees' summaries on the way, nested; past a depth limit the
innermost ones are "unknown" to it for good (`main -> trainer.fit -> run_epoch ->
run_batch` loses `run_batch`). Analysed callees first, every summary a caller asks for is
already known, whatever the depth of the chain.
"""

from __future__ import annotations

import ast
import re
import weakref
from collections.abc import Iterable

from gradguard.analysis.model import FunctionNode
from gradguard.analysis.names import callee_name
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.walk import NESTED_CODE, children


def callees_first(functions: Iterable[FunctionNode], text: str | None) -> list[FunctionNode]:
    """The functions in post-order of the file's call graph, resolved by name (`f(...)`,
    `self.f(...)`, `obj.f(...)` all reach every function or method named `f`); calls
    inside a cycle keep the order they are found in. With the file's text, a function's
    callees are the names followed by `(` in its lines (a superset, found at regex speed:
    an extra edge only changes the order); without it, the calls of its syntax tree."""
    functions = list(functions)
    lines = text.splitlines() if text is not None else None
    by_name: dict[str, list[FunctionNode]] = {}
    for node in functions:
        by_name.setdefault(node.name, []).append(node)
    ordered: list[FunctionNode] = []
    visited: set[int] = set()
    for root in functions:
        if id(root) in visited:
            continue
        visited.add(id(root))
        # Iterative depth-first search: (function, its callees not yet visited).
        stack: list[tuple[FunctionNode, list[FunctionNode]]] = [
            (root, _callees(root, by_name, lines))
        ]
        while stack:
            node, pending = stack[-1]
            while pending and id(pending[-1]) in visited:
                pending.pop()
            if pending:
                callee = pending.pop()
                visited.add(id(callee))
                stack.append((callee, _callees(callee, by_name, lines)))
            else:
                stack.pop()
                ordered.append(node)
    return ordered


@cached_by_node
def _called_names(node: FunctionNode) -> tuple[str, ...]:
    """Names called in a function's own body (nested functions and classes have their own),
    in source order."""
    names: list[str] = []
    stack: list[ast.AST] = list(reversed(node.body))
    pop, push = stack.pop, stack.extend
    while stack:
        child = pop()
        if isinstance(child, NESTED_CODE):
            continue
        if isinstance(child, ast.Call) and (name := callee_name(child.func)) is not None:
            names.append(name)
        inner = children(child)
        inner.reverse()
        push(inner)
    return tuple(names)


def _callees(
    node: FunctionNode, by_name: dict[str, list[FunctionNode]], lines: list[str] | None
) -> list[FunctionNode]:
    if lines is not None:
        names: Iterable[str] = _called_in_text(node, lines)
    else:
        names = _called_names(node)
    found: list[FunctionNode] = []
    for name in names:
        found.extend(f for f in by_name.get(name, ()) if f is not node)
    found.reverse()  # popped from the end: visit in source order
    return found


# The names `_called_in_text` found per function, with the list of lines they were found
# in: every analysis pass over one text asks again (bounded like `node_cache`).
_TEXT_CALLS: weakref.WeakKeyDictionary[ast.AST, tuple[list[str], tuple[str, ...]]] = (
    weakref.WeakKeyDictionary()
)
_TEXT_CALLS_LIMIT = 1024


def _called_in_text(node: FunctionNode, lines: list[str]) -> tuple[str, ...]:
    """The names followed by `(` in the lines of `node`'s body (see `callees_first`): not
    in its header, where `def forward(` would make every `forward` of the file a callee of
    every other and their order arbitrary (a model's `forward` calls its layers through
    attributes, whose classes the file mostly defines first: source order)."""
    own = lines[node.body[0].lineno - 1 : node.end_lineno or node.lineno]
    kept = _TEXT_CALLS.get(node)
    if kept is not None and kept[0] == own:
        return kept[1]
    names = names_called("\n".join(own))
    if len(_TEXT_CALLS) >= _TEXT_CALLS_LIMIT:
        _TEXT_CALLS.clear()
    _TEXT_CALLS[node] = (own, names)
    return names


def names_called(text: str) -> tuple[str, ...]:
    r"""The names followed by `(` in `text`, in order: what a call looks like in the text,
    the matches of `re.findall(r"\b(\w+)\s*\(", text)`.

    They are found in the reversed text, from each `(` over the blanks to the whole word
    before it (`(\s*(\w+)`, the word reversed): forwards, the regex tries every word of
    the text (25x slower on a model file), backwards it starts only at the rare `(`. The
    matches are the same: a match holds one `(`, the rest blanks and word characters, so
    matches never overlap either way; read backwards, the greedy `\w+` runs to the start of
    the word, where the forward `\b` holds."""
    return tuple(word[::-1] for word in reversed(_CALLED_BACKWARDS.findall(text[::-1])))


# `(`, blanks and a word: a call (`name (`) in reversed text (see `names_called`).
_CALLED_BACKWARDS = re.compile(r"\(\s*(\w+)")
