"""The project index: each project file parsed and summarised once, imports answered.

A file another file imports from is read from disk (or from the editor's text given to
`ProjectIndex.update`), parsed with its lines shifted past `FOREIGN_LINE_BASE` (so no
position of it can become one of the importing file) and summarised by its own
`ModuleInterpreter`, with its own imports: its module-level names and every function's
summary, computed completely at once, so what it says never depends on which file asked
first (`--jobs` gives the same answers). Imports between files of one import cycle are
unknown (decided on the import graph, not on the order of questions).

The API a long-running caller (the language server) uses: `imports_for(path)` before
analysing a file, `dependencies(path)` after, `update(path, text)` when a file changes
(it returns the files whose facts may have changed).
"""

from __future__ import annotations

import ast
import logging
from dataclasses import dataclass, field, replace
from pathlib import Path

from gradguard.analysis.imports import is_library
from gradguard.analysis.interpreter.module import ModuleInterpreter
from gradguard.analysis.interpreter.summary import FunctionSummary
from gradguard.analysis.model import FunctionNode, ModuleAnalysis
from gradguard.analysis.values import UNKNOWN, Value, evolve
from gradguard.core.limits import size_problem
from gradguard.core.text import FOREIGN_LINE_BASE
from gradguard.project.content import content_key, read_text
from gradguard.project.graph import Components
from gradguard.project.resolve import find_module

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SourceFile:
    """One project file as read: its content key, shifted tree (None: not Python we can
    read) and the project files its `from ... import` statements name."""

    path: Path
    key: str  # sha256 of the text and the GradGuard version
    tree: ast.Module | None
    links: tuple[Path, ...]


@dataclass(frozen=True)
class ForeignModule:
    """A summarised project file and the content keys of every file its facts rest on."""

    path: Path
    interpreter: ModuleInterpreter
    depends: dict[Path, str]


class ProjectIndex:
    """Project files, parsed and summarised on first use, once per content."""

    def __init__(self) -> None:
        self._texts: dict[Path, str] = {}  # the editor's text of open files
        self._sources: dict[Path, SourceFile | None] = {}
        self._modules: dict[Path, ForeignModule | None] = {}
        self._owners: dict[int, ModuleInterpreter] = {}
        self._used: dict[Path, dict[Path, str]] = {}
        self._components = Components(self._links)

    # -- files -------------------------------------------------------------------------------

    def source(self, path: Path) -> SourceFile | None:
        """The file at `path` parsed (None when it cannot be read or parsed)."""
        if path not in self._sources:
            self._sources[path] = _read_source(path, self._texts.get(path))
        return self._sources[path]

    def _links(self, path: Path) -> tuple[Path, ...]:
        source = self.source(path)
        return source.links if source is not None else ()

    def cyclic(self, importer: Path, target: Path) -> bool:
        """True when `target` (transitively) imports `importer`: facts between them are
        unknown."""
        return importer == target or self._components.same(importer, target)

    # -- summaries ---------------------------------------------------------------------------

    def module(self, path: Path) -> ForeignModule | None:
        """The summarised file at `path`, built on first use (None: unknown)."""
        if path in self._modules:
            return self._modules[path]
        self._modules[path] = None  # while it is being built, it is unknown to itself
        source = self.source(path)
        if source is None or source.tree is None:
            return None
        built = self._build(source, source.tree)
        self._modules[path] = built
        return built

    def _build(self, source: SourceFile, tree: ast.Module) -> ForeignModule | None:
        imports = FileImports(self, source.path)
        interpreter = ModuleInterpreter(tree, ModuleAnalysis(tree), None, imports=imports)
        defined = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        ]
        for node in defined:
            self._owners[id(node)] = interpreter
        try:
            interpreter.summarise()
        except Exception:
            # An analysis bug on another file costs its facts, never the importing file.
            log.debug("cannot summarise %s", source.path, exc_info=True)
            for node in defined:
                self._owners.pop(id(node), None)
            return None
        return ForeignModule(source.path, interpreter, {source.path: source.key, **imports.depends})

    def owner(self, node: ast.AST) -> ModuleInterpreter | None:
        """The interpreter of the other file defining `node`."""
        return self._owners.get(id(node))

    # -- the API of long-running callers ------------------------------------------------------

    def imports_for(self, path: Path) -> FileImports:
        """The project as seen from the file at `path`, for analysing it now."""
        imports = FileImports(self, path)
        self._used[path] = imports.depends
        return imports

    def dependencies(self, path: Path) -> dict[Path, str]:
        """The files whose facts the last analysis of `path` used, with their content keys."""
        return dict(self._used.get(path, {}))

    def update(self, path: Path, text: str | None = None) -> frozenset[Path]:
        """Forget what was read of `path` (use `text` as its content from now on, or the disk
        again with None); return the analysed files whose facts may have changed."""
        path = path.resolve()
        if text is None:
            self._texts.pop(path, None)
        else:
            self._texts[path] = text
        old = self._sources.pop(path, None)
        fresh = self.source(path)
        if old is not None and fresh is not None and old.key == fresh.key:
            return frozenset()
        stale = {p for p, m in self._modules.items() if m is None or path in m.depends}
        for stale_path in stale:
            module = self._modules.pop(stale_path)
            if module is not None:
                self._forget_owners(module)
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

    def imported(self, stmt: ast.Import | ast.ImportFrom, alias: ast.alias) -> Value | None:
        """The value of `from module import name` when `module` is a project file that
        binds `name` once at module level to something the analysis knows."""
        if isinstance(stmt, ast.Import) or alias.name == "*":
            return None  # a module object: its attributes are not followed
        target = _target(self.path, stmt)
        if target is None or self.index.cyclic(self.path, target):
            return None
        module = self.index.module(target)
        if module is None:
            return None
        self.depends.update(module.depends)  # what it binds, or that it binds nothing
        value = module.interpreter.globals.get(alias.name)
        if value is None:
            return None
        return evolve(value, origin=None) if value.origin is not None else value

    def owner(self, node: ast.AST) -> ModuleInterpreter | None:
        """The interpreter of the other file defining `node`."""
        return self.index.owner(node)

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


def _target(importer: Path, stmt: ast.ImportFrom) -> Path | None:
    """The project file a `from ... import` reads names from."""
    module = stmt.module or ""
    if stmt.level == 0 and is_library(module.split(".")[0]):
        return None
    found = find_module(importer, module, stmt.level)
    return found.file if found is not None else None


def _read_source(path: Path, text: str | None) -> SourceFile | None:
    """Read and parse a project file, its lines shifted past `FOREIGN_LINE_BASE`."""
    if text is None:
        text = read_text(path)
        if text is None:
            return None
    key = content_key(text)
    if size_problem(text) is not None:
        return SourceFile(path, key, None, ())
    try:
        tree = ast.parse(text, filename=str(path))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return SourceFile(path, key, None, ())
    ast.increment_lineno(tree, FOREIGN_LINE_BASE)
    links = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _target(path, node)
            if target is not None:
                links.append(target)
    return SourceFile(path, key, tree, tuple(dict.fromkeys(links)))
