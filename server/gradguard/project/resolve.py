"""Module names to files: `import a.b`, `from a.b import C`, `from .z import w`.

A module is a file `a/b.py` or a package `a/b/__init__.py` under one of the roots; a folder
without `__init__.py` is a namespace package (it has no code of its own). Absolute names
are looked up root by root (a regular module in any root wins over a namespace folder, as
in Python); relative names from the importing file's package folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gradguard.project.roots import search_roots


@dataclass(frozen=True)
class Found:
    """What a module name refers to: a file with code, or a namespace folder (no code)."""

    file: Path | None
    namespace: Path | None = None


def _in(folder: Path, parts: list[str]) -> Found | None:
    base = folder.joinpath(*parts) if parts else folder
    if parts:
        module = base.parent / f"{parts[-1]}.py"
        if module.is_file():
            return Found(module)
    init = base / "__init__.py"
    if init.is_file():
        return Found(init)
    if parts and base.is_dir():
        return Found(None, base)
    return None


def find_module(importer: Path, module: str, level: int) -> Found | None:
    """The module `module` (dotted; "" for `from . import x`) as imported by `importer` with
    `level` leading dots, or None when it is not a file or folder of the project."""
    parts = [p for p in module.split(".") if p] if module else []
    if any(not part.isidentifier() for part in parts):
        return None
    if level > 0:
        folder = importer.parent
        for _ in range(level - 1):
            folder = folder.parent
        return _in(folder, parts)
    if not parts:
        return None
    namespace: Found | None = None
    for root in search_roots(importer.parent):
        found = _in(root, parts)
        if found is not None and found.file is not None:
            return found
        if found is not None and namespace is None:
            namespace = found
    return namespace


def candidate_files(importer: Path, module: str, level: int) -> tuple[Path, ...]:
    """The files that would define `module` as imported by `importer` if they existed: a
    file created there later changes what the import means (see `ABSENT`)."""
    parts = [p for p in module.split(".") if p] if module else []
    if any(not part.isidentifier() for part in parts):
        return ()
    if level > 0:
        folder = importer.parent
        for _ in range(level - 1):
            folder = folder.parent
        folders: tuple[Path, ...] = (folder,)
    elif parts:
        folders = search_roots(importer.parent)
    else:
        return ()
    found: list[Path] = []
    for folder in folders:
        base = folder.joinpath(*parts)
        if parts:
            found.append(base.parent / f"{parts[-1]}.py")
        found.append(base / "__init__.py")
    return tuple(found)


# The content key recorded for a file that did not exist when a result was computed.
ABSENT = ""
