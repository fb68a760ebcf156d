"""A summarised file's facts as comparable data: did an edit change what importers see?

An importing file sees another file through its module-level values (classes, functions,
module-level objects), its functions' summaries, and through the code around them (a class's
bases and attributes, which the analysis may read lazily, `__all__`). `fingerprint` digests
all of that: syntax nodes count by their type, name and position (two parses of one text
give equal digests), other objects by their fields. Two equal fingerprints mean importers
would get the same answers, so an edit inside a function body that leaves its summary as it
was re-analyses nothing else.

The digest of a composite is the hash of its parts' digests (`_Digests`), the parts of a set
or a dict in sorted order: equal facts give equal digests whatever order a set of objects
happened to iterate in (by address, different in every analysis), and an object shared by
many facts is digested once. The digesting is bounded: facts too large to digest compare
unequal to everything, which only costs a re-analysis.
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
from gradguard.project.grad_off_calls import names_called_off

# Objects digested at most per file: beyond it the fingerprint is "unique" (always changed).
_BUDGET = 200_000


class _TooLarge(Exception):
    pass


class _Digests:
    """Digests of fact objects: equal for equal facts, whatever the order in which sets were
    iterated (sets of objects iterate by address) and whichever objects are shared. A
    composite's digest hashes its parts' digests, a set's or a dict's in sorted order; an
    object is digested once however often it is reached."""

    def __init__(self) -> None:
        import hashlib  # here: only a check that summarises another project file needs it

        self._blake2b = hashlib.blake2b
        # id -> (digest, the object): holding it keeps its id from being reused meanwhile.
        self.known: dict[int, tuple[str, object]] = {}
        self.active: set[int] = set()  # objects being digested (a cycle reaches them again)
        self.budget = _BUDGET

    def of(self, value: object) -> str:
        self.budget -= 1
        if self.budget < 0:
            raise _TooLarge
        if value is None or isinstance(value, str | int | float | bool | bytes):
            return repr(value)
        if isinstance(value, enum.Enum):
            return f"{type(value).__name__}.{value.name}"
        if isinstance(value, ast.AST):
            return repr(_node(value))
        if isinstance(value, dict):
            pairs = sorted(f"{self.of(k)}:{self.of(v)}" for k, v in value.items())
            return self.hashed("dict", pairs)
        if isinstance(value, list | tuple):
            return self.hashed("seq", [self.of(v) for v in value])
        if isinstance(value, set | frozenset):
            return self.hashed("set", sorted(self.of(v) for v in value))
        return self._object(value)

    def _object(self, value: object) -> str:
        key = id(value)
        known = self.known.get(key)
        if known is not None:
            return known[0]
        if key in self.active:
            return f"cycle:{type(value).__name__}"
        if not (dataclasses.is_dataclass(value) and not isinstance(value, type)):
            # An analysis object that is not data (an interpreter, a checker): its type only.
            return type(value).__name__
        self.active.add(key)
        try:
            parts = [
                f"{f.name}={self.of(getattr(value, f.name))}" for f in dataclasses.fields(value)
            ]
        finally:
            self.active.discard(key)
        digest = self.hashed(type(value).__name__, parts)
        self.known[key] = (digest, value)
        return digest

    def hashed(self, tag: str, parts: list[str]) -> str:
        """The digest of a tagged sequence of parts (digests or scalars' `repr`)."""
        text = repr((tag, parts)).encode("utf-8", "surrogatepass")
        return self._blake2b(text, digest_size=16).hexdigest()


def fingerprint(interpreter: ModuleInterpreter) -> Hashable:
    """What files importing the summarised module can observe of it (see the module doc).

    Returns a unique object (equal to nothing else) when the facts are too large to digest.
    """
    digests = _Digests()
    try:
        defined = {
            id(node): node
            for node in ast.walk(interpreter.tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        summaries = sorted(
            f"{_node(defined[key]) if key in defined else None}:{digests.of(_seen(summary))}"
            for key, summary in interpreter.summaries.items()
        )
        values = digests.of({name: _unplaced(v) for name, v in interpreter.globals.items()})
        # The names it calls with recording off: files of its part of the project read them
        # (`grad_off_calls`), whether or not they import it.
        off = sorted(f"off:{name}" for name in names_called_off(interpreter.tree))
        parts = [values, *summaries, *skeleton(interpreter.tree), *off]
        return digests.hashed("module", parts)
    except (_TooLarge, RecursionError):
        return object()


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
