"""The content key of a project file: what a fact from it is valid for.

Light on purpose: the results cache checks stored dependencies with it before deciding
whether anything needs analysing at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ast

from gradguard import __version__


def content_key(text: str) -> str:
    """The key of a file's text under this GradGuard version."""
    import hashlib  # here: a check that reads no other project file never needs it (start-up)

    return hashlib.sha256(f"{__version__}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


def parse_text(path: Path, text: str) -> ast.Module | None:
    """A project file's tree (None when it does not parse). Warnings of another file (invalid
    escapes and the like) are not ours to print, and under `-W error` they would turn a valid
    file into a parse error (see `engine.parse`)."""
    import ast  # here: the results cache's checks of stored keys never parse
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=str(path))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def read_text(path: Path) -> str | None:
    """A project file's text as the index reads it (None when it cannot be read)."""
    try:
        return path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None


# path -> (its stat stamp, its key): a results cache checks every dependency of every cached
# file, and the files a result rests on (the files of its part of the import graph, see
# `grad_off_index`) are shared by many results, so each is read once per process while its
# size, modification time and inode stay the same.
_keys: dict[str, tuple[tuple[int, int, int], str | None]] = {}


def current_key(path: str) -> str | None:
    """The key of the file at `path` as it is now on disk (None: unreadable or gone)."""
    import os

    try:
        info = os.stat(path)
    except OSError:
        return None
    stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
    known = _keys.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    text = read_text(Path(path))
    key = content_key(text) if text is not None else None
    _keys[path] = (stamp, key)
    return key
