"""Where a file's imports are looked for: the folders Python would search.

For a file, the roots are its own folder when that is not a package (a script run as
`python train.py` imports its neighbours), the folder above its outermost package, and the
project folder (the nearest one holding `pyproject.toml`, `setup.py`, `setup.cfg` or
`.git`) with its `src/` folder when there is one. Roots depend on the file's place only, so
every file resolves the same way whoever imports it.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def is_package(folder: Path) -> bool:
    """True when `folder` is a regular package (it holds `__init__.py`)."""
    return (folder / "__init__.py").is_file()


@lru_cache(maxsize=4096)
def project_folder(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` holding a project marker."""
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in PROJECT_MARKERS):
            return candidate
    return None


@lru_cache(maxsize=4096)
def search_roots(folder: Path) -> tuple[Path, ...]:
    """The roots, in search order, for files in `folder` (an absolute, resolved path)."""
    roots: list[Path] = []
    if not is_package(folder):
        roots.append(folder)
    top = folder
    while is_package(top) and top.parent != top:
        top = top.parent
    roots.append(top)
    project = project_folder(folder)
    if project is not None:
        roots.append(project)
        if (project / "src").is_dir():
            roots.append(project / "src")
    return tuple(dict.fromkeys(roots))
