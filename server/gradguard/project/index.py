"""The project index: each project file read, parsed and summarised once per content.

A file another file imports from is read from disk (or from the editor's text given to
`ProjectIndex.update`) and summarised by its own `ModuleInterpreter`, with its own imports:
its module-level names and every function's summary, computed completely at once, so what
it says never depends on which file asked first (`--jobs` gives the same answers). Then its
tree is shifted past `FOREIGN_LINE_BASE`, so no position of it can become one of an
importing file's. Imports between files of one import cycle are unknown (decided on the
import graph, read from the files' text, not on the order of questions).

The API a long-running caller (the language server) uses: `imports_for(path)` before
analysing a file, `dependencies(path)` after, `update(path, text)` when a file changes
(it returns the files whose facts may have changed), or `revise(path, text)`, which
summarises the changed file again when others use it and returns the files to re-analyse
only when what they can see of it changed (`gradguard.project.facts`). The index is not
thread-safe: a caller with threads holds one lock around every use (`project.live`).

The reverse question, which names other files of the project call with recording off, is
answered for the checked file only (`FileImports.called_without_grad`, see `grad_off_index`):
a summary never rests on the files importing it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from gradguard.analysis.imports import is_library
from gradguard.analysis.interpreter.module import ModuleInterpreter
from gradguard.analysis.interpreter.summary import FunctionSummary
from gradguard.analysis.model import FunctionNode, ModuleAnalysis
from gradguard.analysis.node_cache import tree_scope
from gradguard.analysis.values import UNKNOWN, Kind, Value, evolve
from gradguard.core.limits import size_problem
from gradguard.core.text import FOREIGN_LINE_BASE
from gradguard.project.content import content_key, parse_text, read_text
from gradguard.project.facts import fingerprint
from gradguard.project.grad_off_index import GradOffIndex
from gradguard.project.graph import Components
from gradguard.project.resolve import ABSENT, candidate_files, find_module
from gradguard.project.roots import project_folder, search_roots

if TYPE_CHECKING:
    import logging


def _log() -> logging.Logger:
    """This module's logger: logging is imported when something is logged (start-up)."""
    import logging

    return logging.getLogger(__name__)


# The summaries an index keeps, counted in lines of the summarised files: a summary holds
# its file's syntax tree and what importers read of its interpreter, about 1.1 KiB per line,
# nine tenths of it the tree (traced on transformers 5.23.0's files, see
# benchmarks/results/project_index.md). Beyond this the least recently used ones are
# dropped, with every summary resting on them, and summarised again when a check needs
# them: memory stays bounded on a huge tree, results do not change.
SUMMARY_BUDGET_LINES = 20_000


class SourceFile:
    """One project file as read: its text and content key, the project files its
    `from ... import` statements may name (found in the text, without parsing it), and its
    syntax tree, parsed on first use (None: not Python we can read; shifted once
    summarised)."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text
        self.key = content_key(text)
        self.links = tuple(dict.fromkeys(links_in(path, text)))
        self._tree: ast.Module | None = None
        self._parsed = False
        self.defined: tuple[ast.AST, ...] = ()  # its classes and functions, nested ones too

    @property
    def tree(self) -> ast.Module | None:
        """The file's syntax tree (None when it is too large or does not parse)."""
        if not self._parsed:
            self._parsed = True
            self._tree = _parse(self.path, self.text)
            if self._tree is not None:
                self.defined = tuple(
                    node
                    for node in ast.walk(self._tree)
                    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                )
        return self._tree

    def forget_text(self) -> None:
        """Drop the text once the tree is parsed and summarised (only its key and links are
        read afterwards; a file summarised again is read again)."""
        self.text = ""


@dataclass(frozen=True, slots=True)
class Outline:
    """What the import graph needs of a file: its content key (None: unreadable) and the
    project files it imports from, without its text."""

    key: str | None
    links: tuple[Path, ...]


@dataclass(frozen=True)
class ForeignModule:
    """A summarised project file and the content keys of every file its facts rest on."""

    path: Path
    interpreter: ModuleInterpreter
    depends: dict[Path, str]
    facts: Hashable = None  # what importers see (`facts.fingerprint`), when tracked


class ProjectIndex:
    """Project files, parsed and summarised on first use, once per content."""

    def __init__(self, *, track_facts: bool = False) -> None:
        self.track_facts = track_facts  # keep each summary's fingerprint (for `revise`)
        self._texts: dict[Path, str] = {}  # the editor's text of open files
        self._sources: dict[Path, SourceFile | None] = {}
        # The outline of every file the import graph reached (`_outline`): its text is not
        # kept, as a whole tree's texts would outweigh all the summaries.
        self._outlines: dict[Path, Outline] = {}
        self._paths: dict[Path, Path] = {}  # one object per project path (links share it)
        self._modules: dict[Path, ForeignModule | None] = {}
        self._owners: dict[int, ModuleInterpreter] = {}
        self._used: dict[Path, dict[Path, str]] = {}
        self._lines: dict[Path, int] = {}  # lines of each summarised file
        self._components = Components(self._links)
        self.grad_off = GradOffIndex(self._texts)  # names other files call with grad off

    # -- files -------------------------------------------------------------------------------

    def source(self, path: Path) -> SourceFile | None:
        """The file at `path` parsed (None when it cannot be read or parsed)."""
        if path not in self._sources:
            self._sources[path] = self._read(path)
        return self._sources[path]

    def links_of(self, path: Path) -> tuple[Path, ...]:
        """The project files the file at `path` imports, read without keeping its text
        (warming reads every file of the workspace; only those summarised are kept)."""
        return self._outline(path).links

    def _links(self, path: Path) -> tuple[Path, ...]:
        return self._outline(path).links

    def _outline(self, path: Path) -> Outline:
        """The file's content key and links: of its source when read, else read once and
        kept without the text until the file changes (`_set_text`)."""
        known = self._known_outline(path)
        if known is None:
            source = self._read(path)
            known = Outline(source.key, source.links) if source is not None else Outline(None, ())
            self._outlines[path] = known
        return known

    def _known_outline(self, path: Path) -> Outline | None:
        """The outline of `path` as read before, without reading it (None: not read)."""
        source = self._sources.get(path)
        if source is not None:
            return Outline(source.key, source.links)
        return self._outlines.get(path)

    def _read(self, path: Path) -> SourceFile | None:
        """Read a project file (the editor's text when it has one), its links shared."""
        source = _read_source(path, self._texts.get(path))
        if source is not None:
            source.links = tuple(self._paths.setdefault(link, link) for link in source.links)
        return source

    def cyclic(self, importer: Path, target: Path) -> bool:
        """True when `target` (transitively) imports `importer`: facts between them are
        unknown."""
        return importer == target or self._components.same(importer, target)

    # -- summaries ---------------------------------------------------------------------------

    def module(self, path: Path) -> ForeignModule | None:
        """The summarised file at `path`, built on first use (None: unknown)."""
        if path in self._modules:
            known = self._modules[path]
            if known is not None:  # the most recently used last (see `trim`)
                del self._modules[path]
                self._modules[path] = known
            return known
        self._modules[path] = None  # while it is being built, it is unknown to itself
        source = self.source(path)
        if source is None or source.tree is None:
            return None
        lines = source.text.count("\n") + 1
        built = self._build(source, source.tree)
        self._modules[path] = built
        if built is not None:
            self._lines[path] = lines
        return built

    def summarised_lines(self) -> int:
        """The lines of the files summarised now (see `SUMMARY_BUDGET_LINES`)."""
        return sum(self._lines.get(p, 0) for p, m in self._modules.items() if m is not None)

    def trim(self, budget: int = SUMMARY_BUDGET_LINES) -> None:
        """Drop the least recently used summaries, each with every summary resting on it,
        until those kept total at most `budget` lines. Only between two checks: a dropped
        file is summarised again, the same, when a check needs it."""
        total = self.summarised_lines()
        while total > budget:
            oldest = next((p for p, m in self._modules.items() if m is not None), None)
            if oldest is None:
                return
            self._drop_resting_on(oldest)
            total = self.summarised_lines()

    def _drop_resting_on(self, path: Path) -> None:
        """Forget the summary of `path` and of every file whose facts rest on it."""
        stale = [p for p, m in self._modules.items() if m is not None and path in m.depends]
        for stale_path in stale:
            module = self._modules.pop(stale_path)
            assert module is not None
            self._forget_owners(module)
            self._sources.pop(stale_path, None)  # its tree was shifted: parse it again
            self._lines.pop(stale_path, None)

    def _build(self, source: SourceFile, tree: ast.Module) -> ForeignModule | None:
        # In a scope of its own when no check is running (warming, `revise`): the answers
        # cached about the tree end with it. Kept in the process-wide caches instead, a
        # whole-module answer (its walk) would hold the tree alive after the summary is gone.
        with tree_scope():
            return self._summarise(source, tree)

    def _summarise(self, source: SourceFile, tree: ast.Module) -> ForeignModule | None:
        imports = FileImports(self, source.path)
        interpreter = ModuleInterpreter(tree, ModuleAnalysis(tree), source.text, imports=imports)
        for node in source.defined:
            self._owners[id(node)] = interpreter
        try:
            interpreter.summarise()
        except Exception:
            # An analysis bug on another file costs its facts, never the importing file.
            _log().debug("cannot summarise %s", source.path, exc_info=True)
            for node in source.defined:
                self._owners.pop(id(node), None)
            return None
        finally:
            # From now on no position of it can become one of the importing file's.
            _shift(tree)
        interpreter.release_after_summary()  # what importers never read (see there)
        source.forget_text()
        depends = {source.path: source.key, **imports.depends}
        facts = fingerprint(interpreter) if self.track_facts else None
        return ForeignModule(source.path, interpreter, depends, facts)

    def owner(self, node: ast.AST) -> ModuleInterpreter | None:
        """The interpreter of the other file defining `node`."""
        return self._owners.get(id(node))

    # -- the API of long-running callers ------------------------------------------------------

    def imports_for(self, path: Path) -> FileImports:
        """The project as seen from the file at `path`, for analysing it now."""
        self.trim()
        imports = FileImports(self, path, checked=True)
        self._used[path] = imports.depends
        return imports

    def dependencies(self, path: Path) -> dict[Path, str]:
        """The files whose facts the last analysis of `path` used, with their content keys."""
        return dict(self._used.get(path, {}))

    def update(self, path: Path, text: str | None = None) -> frozenset[Path]:
        """Forget what was read of `path` (use `text` as its content from now on, or the disk
        again with None); return the analysed files whose facts may have changed."""
        path = path.resolve()
        old = self._known_outline(path)
        self._set_text(path, text)
        self._sources.pop(path, None)
        fresh = self.source(path)
        if old is not None and fresh is not None and old.key == fresh.key:
            return frozenset()
        return self._invalidate(path)

    def revise(self, path: Path, text: str | None = None) -> frozenset[Path]:
        """`update`, but the analysed files that used `path` are returned only when what they
        can see of it changed: a summarised file is summarised again at once and its facts
        compared (`facts.fingerprint`, kept when `track_facts`). A file nothing uses costs
        no summary at all."""
        path = path.resolve()
        old_source, old_module = self._known_outline(path), self._modules.get(path)
        self._set_text(path, text)
        self._sources.pop(path, None)
        fresh = self.source(path)
        if old_source is not None and fresh is not None and old_source.key == fresh.key:
            return frozenset()
        same_links = (
            old_source is not None and fresh is not None and old_source.links == fresh.links
        )
        if not same_links or not self.track_facts:
            return self._invalidate(path)  # a changed import graph may change any cycle
        if old_module is None:
            if path in self._modules or self._used_by_others(path):
                return self._invalidate(path)
            return frozenset()  # never summarised: nothing rests on it
        del self._modules[path]
        new = self.module(path)
        if new is None or new.facts != old_module.facts:
            self._forget_owners(old_module)
            return self._invalidate(path, keep=new)
        # Same facts: keep the summary importers already hold, under the new content key.
        self._forget_owners(new)
        self._modules[path] = old_module
        assert fresh is not None  # `new` was built from it
        # The new tree was parsed only to compare facts: keep the outline, not the tree (the
        # file is parsed again if its summary is ever built again).
        self._sources.pop(path, None)
        self._outlines[path] = Outline(fresh.key, fresh.links)
        for depends in self._all_depends():
            if path in depends:
                depends[path] = fresh.key
        return frozenset()

    def forget_all(self) -> frozenset[Path]:
        """Forget every file read and summarised (files appeared or disappeared, so imports
        may resolve differently); the editor's texts stay. Returns every analysed file."""
        self._sources.clear()
        self._outlines.clear()
        self._modules.clear()
        self._lines.clear()
        self._owners.clear()
        self._components = Components(self._links)
        self.grad_off.forget_all()
        search_roots.cache_clear()
        project_folder.cache_clear()
        return frozenset(self._used)

    def release(self, paths: Iterable[Path]) -> None:
        """Forget the read text of files that are not summarised (read again when needed)."""
        for path in paths:
            if path not in self._modules:
                self._sources.pop(path, None)

    def _set_text(self, path: Path, text: str | None) -> None:
        self._outlines.pop(path, None)  # its key and links are read again
        self.grad_off.forget(path)
        if text is None:
            self._texts.pop(path, None)
        else:
            self._texts[path] = text

    def _used_by_others(self, path: Path) -> bool:
        return any(path in depends for depends in self._all_depends())

    def _all_depends(self) -> Iterator[dict[Path, str]]:
        yield from self._used.values()
        yield from (m.depends for m in self._modules.values() if m is not None)

    def _invalidate(self, path: Path, keep: ForeignModule | None = None) -> frozenset[Path]:
        """Drop every summary resting on `path` (except `keep`, its new summary); return the
        analysed files that used it, and `path` itself."""
        stale = {
            p
            for p, m in self._modules.items()
            if m is None or (path in m.depends and m is not keep)
        }
        for stale_path in stale:
            module = self._modules.pop(stale_path)
            if module is not None:
                self._forget_owners(module)
                self._sources.pop(stale_path, None)  # its tree was shifted: parse it again
            self._lines.pop(stale_path, None)
        self._components = Components(self._links)
        return frozenset(p for p, used in self._used.items() if path in used) | {path}

    def _forget_owners(self, module: ForeignModule) -> None:
        for node in ast.walk(module.interpreter.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self._owners.pop(id(node), None)


@dataclass
class FileImports:
    """What the names one file imports from the project are (`ProjectImports`), and the
    files its facts rested on."""

    index: ProjectIndex
    path: Path
    depends: dict[Path, str] = field(default_factory=dict)
    # The file being checked (not one summarised for its importers, whose summary must not
    # rest on the files importing it): it learns what other files call with grad off.
    checked: bool = False

    def called_without_grad(self) -> frozenset[str]:
        """The names other files of the project may call with recording off (see
        `grad_off_calls`); empty for a summarised file."""
        if not self.checked:
            return frozenset()
        names, depends = self.index.grad_off.called_off_elsewhere(self.path)
        for path, key in depends.items():
            self.depends.setdefault(path, key)
        return names

    def imported(self, stmt: ast.Import | ast.ImportFrom, alias: ast.alias) -> Value | None:
        """The value of `from module import name` when `module` is a project file that
        binds `name` once at module level to something the analysis knows."""
        if isinstance(stmt, ast.Import) or alias.name == "*":
            return None  # a module object: its attributes are not followed
        target = _target(self.path, stmt)
        if target is None:
            self._absent(stmt)
            return None
        if self.index.cyclic(self.path, target):
            return None
        module = self.index.module(target)
        if module is None:
            return None
        self.depends.update(module.depends)  # what it binds, or that it binds nothing
        value = module.interpreter.globals.get(alias.name)
        if value is None or value.kind not in _CROSSING:
            return None
        return evolve(value, origin=None) if value.origin is not None else value

    def star(self, stmt: ast.ImportFrom) -> dict[str, Value]:
        """What `from module import *` binds: the public names (those `__all__` lists, when
        it is a literal list) bound to classes, functions and module-level objects."""
        target = _target(self.path, stmt)
        if target is None:
            self._absent(stmt)
            return {}
        if self.index.cyclic(self.path, target):
            return {}
        module = self.index.module(target)
        if module is None:
            return {}
        self.depends.update(module.depends)
        exported = _exported(module.interpreter.tree)
        if exported is None:
            return {}
        return {
            name: evolve(value, origin=None) if value.origin is not None else value
            for name, value in module.interpreter.globals.items()
            if value.kind in _CROSSING
            and "." not in name
            and (not name.startswith("_") if "*" in exported else name in exported)
        }

    def owner(self, node: ast.AST) -> ModuleInterpreter | None:
        """The interpreter of the other file defining `node`."""
        return self.index.owner(node)

    def _absent(self, stmt: ast.ImportFrom) -> None:
        """An import no project file defines: the result rests on the files that would
        define it not existing (a cached result is stale once one is created)."""
        module = stmt.module or ""
        if stmt.level == 0 and is_library(module.split(".")[0]):
            return
        for candidate in candidate_files(self.path, module, stmt.level):
            self.depends.setdefault(candidate, ABSENT)

    def summary(self, owner: ModuleInterpreter, node: FunctionNode) -> FunctionSummary:
        """The function's summary as its own file computed it (never recomputed here, so
        the answer is the same whoever asks first)."""
        summary = owner.summaries.get(id(node))
        if summary is None:
            return FunctionSummary(UNKNOWN)
        returned = summary.returned
        if returned.origin is not None:
            return replace(summary, returned=evolve(returned, origin=None))
        return summary


# What crosses files: classes, functions and module-level objects (a model, a criterion).
# Not constants and tensors: another module may set them before this import runs
# (`config.use_amp = args.amp` in the entry script), which the importing file cannot see.
_CROSSING = frozenset({Kind.CLASS, Kind.FUNCTION, Kind.MODULE, Kind.INSTANCE})


def _exported(tree: ast.Module) -> frozenset[str] | None:
    """The names `from m import *` binds: those a literal `__all__` lists, or every public
    name (`*` in the set) without one; None for an `__all__` not understood."""
    names: frozenset[str] = frozenset({"*"})
    for stmt in tree.body:
        if isinstance(stmt, ast.AugAssign | ast.AnnAssign) and "__all__" in ast.dump(stmt.target):
            return None
        if not isinstance(stmt, ast.Assign):
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets):
            value = stmt.value
            if not isinstance(value, ast.List | ast.Tuple) or "*" not in names:
                return None  # computed, or assigned twice
            listed = [e.value for e in value.elts if isinstance(e, ast.Constant)]
            if len(listed) != len(value.elts) or not all(isinstance(n, str) for n in listed):
                return None
            names = frozenset(str(n) for n in listed)
    return names


def _target(importer: Path, stmt: ast.ImportFrom) -> Path | None:
    """The project file a `from ... import` reads names from."""
    module = stmt.module or ""
    if stmt.level == 0 and is_library(module.split(".")[0]):
        return None
    found = find_module(importer, module, stmt.level)
    return found.file if found is not None else None


def _read_source(path: Path, text: str | None) -> SourceFile | None:
    """Read a project file (None when it cannot be read)."""
    if text is None:
        text = read_text(path)
        if text is None:
            return None
    return SourceFile(path, text)


def _parse(path: Path, text: str) -> ast.Module | None:
    return None if size_problem(text) is not None else parse_text(path, text)


# `from a.b import`, `from .c import`, `from . import` at the start of a line (a superset
# of the real statements: one in a string only adds an edge, making more imports unknown).
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import\b", re.MULTILINE)


def links_in(importer: Path, text: str) -> Iterator[Path]:
    """The project files the `from ... import` statements of a text name."""
    for match in _FROM_IMPORT.finditer(text):
        dots, module = match.group(1), match.group(2)
        if not dots and (not module or is_library(module.split(".")[0])):
            continue
        found = find_module(importer, module, len(dots))
        if found is not None and found.file is not None:
            yield found.file


def _shift(tree: ast.Module) -> None:
    """Move every node of a summarised file past `FOREIGN_LINE_BASE` (see `core.text`).

    Equal positions share one int object: each number above 256 is otherwise an object of
    its own per node, and a kept tree holds about four nodes a line."""
    shared: dict[int, int] = {}
    for node in ast.walk(tree):
        if "lineno" not in node._attributes:
            continue
        line = node.lineno + FOREIGN_LINE_BASE  # type: ignore[attr-defined]
        node.lineno = shared.setdefault(line, line)  # type: ignore[attr-defined]
        for name in ("end_lineno", "col_offset", "end_col_offset"):
            value = getattr(node, name, None)
            if value is not None:
                if name == "end_lineno":
                    value += FOREIGN_LINE_BASE
                setattr(node, name, shared.setdefault(value, value))
