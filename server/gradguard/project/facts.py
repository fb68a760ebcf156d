"""A summarised file's facts as comparable data: did an edit change what importers see?

An importing file sees another file through its module-level values (classes, functions,
module-level objects), its functions' summaries, and through the code around them (a class's
bases and attributes, which the analysis may read lazily, `__all__`). `fingerprint` renders
all of that as plain nested tuples: syntax nodes become their type, name and position (two
parses of one text give equal renderings), other objects their fields. Two equal
fingerprints mean importers would get the same answers, so an edit inside a function body
that leaves its summary as it was re-analyses nothing else. The index keeps a fingerprint
with every summary, so it is kept as a digest of the rendering's text, not the rendering
(which weighed about a tenth of the syntax tree). The rendering is bounded: a fact
structure too large to render compares unequal to everything, which only costs a
re-analysis.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
from collections.abc import Hashable, Iterator
from dataclasses import replace

from gradguard.analysis.interpreter.module import ModuleInterpreter
from gradguard.analysis.interpreter.summary import FunctionSummary
from gradguard.analysis.values import Value, evolve

# Items rendered at most per file: beyond it the fingerprint is "unique" (always changed).
_BUDGET = 200_000


class _TooLarge(Exception):
    pass


class _Renderer:
    """Renders fact objects as hashable plain data, following each object once."""

    def __init__(self) -> None:
        # id -> (number, the object): holding it keeps its id from being reused meanwhile.
        self.seen: dict[int, tuple[int, object]] = {}
        self.budget = _BUDGET

    def render(self, value: object) -> Hashable:
        self.budget -= 1
        if self.budget < 0:
            raise _TooLarge
        if value is None or isinstance(value, str | int | float | bool | bytes):
            return value
        if isinstance(value, enum.Enum):
            return (type(value).__name__, value.name)
        if isinstance(value, ast.AST):
            return _node(value)
        if isinstance(value, dict):
            items = [(self.render(k), self.render(v)) for k, v in value.items()]
            return ("dict", tuple(sorted(items, key=repr)))
        if isinstance(value, list | tuple):
            return ("seq", tuple(self.render(v) for v in value))
        if isinstance(value, set | frozenset):
            return ("set", tuple(sorted((self.render(v) for v in value), key=repr)))
        return self._object(value)

    def _object(self, value: object) -> Hashable:
        key = id(value)
        if key in self.seen:
            return ("ref", self.seen[key][0])  # shared or cyclic: its first rendering's number
        self.seen[key] = (len(self.seen), value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = tuple(
                (f.name, self.render(getattr(value, f.name))) for f in dataclasses.fields(value)
            )
            return (type(value).__name__, fields)
        # An analysis object that is not data (an interpreter, a checker): its type only.
        return (type(value).__name__,)


def _node(node: ast.AST) -> Hashable:
    name = getattr(node, "name", None)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        # A definition by its name and start: where its body ends is no fact about it.
        return (type(node).__name__, node.name, node.lineno, node.col_offset)
    return (
        type(node).__name__,
        name if isinstance(name, str) else None,
        getattr(node, "lineno", None),
        getattr(node, "col_offset", None),
        getattr(node, "end_lineno", None),
        getattr(node, "end_col_offset", None),
    )


def fingerprint(interpreter: ModuleInterpreter) -> Hashable:
    """What files importing the summarised module can observe of it (see the module doc).

    Returns a unique object (equal to nothing else) when the facts are too large to render.
    """
    renderer = _Renderer()
    try:
        defined = {
            id(node): node
            for node in ast.walk(interpreter.tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        summaries = tuple(
            (_node(defined[key]) if key in defined else None, renderer.render(_seen(summary)))
            for key, summary in interpreter.summaries.items()
        )
        values = renderer.render({name: _unplaced(v) for name, v in interpreter.globals.items()})
        rendering = (values, tuple(sorted(summaries, key=repr)), tuple(skeleton(interpreter.tree)))
        return _digest(rendering)
    except (_TooLarge, RecursionError):
        return object()


def _digest(rendering: Hashable) -> str:
    """The digest of a rendering's text: plain data (strings, numbers, tuples) whose `repr`
    tells apart any two different renderings."""
    import hashlib  # here: only a check that summarises another project file needs it (start-up)

    text = repr(rendering).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=20).hexdigest()


def _unplaced(value: Value) -> Value:
    """A value as importers get it: without the place it was made (`FileImports`)."""
    return evolve(value, origin=None) if value.origin is not None else value


def _seen(summary: FunctionSummary) -> FunctionSummary:
    """A summary as callers in other files get it (`FileImports.summary`)."""
    return replace(summary, returned=_unplaced(summary.returned))


def skeleton(tree: ast.Module) -> Iterator[str]:
    """The module without its function bodies: module-level statements, class bodies, and
    every function's name, decorators and signature (with positions)."""
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            parts = [stmt.args, *stmt.decorator_list, *([stmt.returns] if stmt.returns else [])]
            described = "|".join(ast.dump(part) for part in parts)
            yield f"def {stmt.name}@{stmt.lineno}:{described}"
        elif isinstance(stmt, ast.ClassDef):
            heads = [*stmt.bases, *stmt.keywords, *stmt.decorator_list]
            yield f"class {stmt.name}@{stmt.lineno}:{'|'.join(ast.dump(h) for h in heads)}"
            stack.extend(reversed(stmt.body))
        else:
            yield ast.dump(stmt, include_attributes=True)
