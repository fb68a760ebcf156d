"""Which files `gradguard check` looks at, and reading and writing them byte-faithfully.

Discovery walks directories for `*.py`, skipping hidden and tool directories and whatever
git ignores. Explicitly named files are always checked. Reading keeps what a fix must
preserve (the UTF-8 BOM, the line breaks); writing is atomic and keeps the permission bits.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# Directories that never hold the user's own sources (virtualenvs, build output, caches).
SKIP_DIRS = frozenset({".venv", "venv", "build", "node_modules", "__pycache__"})
SOURCE_SUFFIXES = (".py",)
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Discovery:
    """The files to check, in a stable order, and the named paths that do not exist."""

    files: tuple[Path, ...]
    missing: tuple[str, ...] = ()


def discover(paths: Sequence[str]) -> Discovery:
    """Expand files and directories into the list of files to check (deduplicated, sorted)."""
    chosen: dict[str, Path] = {}
    missing: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for found in walk(path):
                chosen.setdefault(_key(found), found)
        elif path.exists():
            chosen.setdefault(_key(path), path)
        else:
            missing.append(raw)
    files = sorted(chosen.values(), key=lambda p: p.as_posix())
    return Discovery(tuple(files), tuple(missing))


def _key(path: Path) -> str:
    try:
        return str(path.resolve())
    except OSError:
        return str(path.absolute())


def walk(root: Path) -> list[Path]:
    """The source files under `root`, without skipped directories and git-ignored paths."""
    candidates: list[Path] = []
    ignore_files: list[Path] = []
    for folder, dirnames, filenames in os.walk(root):
        # Pruning in place keeps os.walk out of virtualenvs and caches entirely.
        dirnames[:] = sorted(d for d in dirnames if not _skipped_dir(d))
        base = Path(folder)
        if ".gitignore" in filenames:
            ignore_files.append(base / ".gitignore")
        candidates.extend(base / name for name in sorted(filenames) if _is_source(name))
    if not candidates:
        return []
    ignored = git_ignored(root, candidates)
    if ignored is None:
        matcher = GitignoreMatcher.load(ignore_files)
        return [p for p in candidates if not matcher.ignores(p, root)]
    return [p for p in candidates if p not in ignored]


def _skipped_dir(name: str) -> bool:
    return name.startswith(".") or name in SKIP_DIRS


def _is_source(name: str) -> bool:
    return name.endswith(SOURCE_SUFFIXES)


def git_ignored(root: Path, candidates: Sequence[Path]) -> set[Path] | None:
    """Ask git which of `candidates` it ignores; `None` when `root` is not in a git work tree."""
    import subprocess

    relative = [os.path.relpath(p, root) for p in candidates]
    try:
        proc = subprocess.run(
            # A cloned repository's .git/config may set core.fsmonitor to any command, which
            # git runs when it reads the index: never let a checked project run code.
            ["git", "-c", "core.fsmonitor=false", "check-ignore", "--stdin", "-z"],
            cwd=root,
            input="\0".join(relative).encode("utf-8", "surrogateescape") + b"\0",
            capture_output=True,
            check=False,
        )
    except OSError:  # git is not installed
        return None
    # 0: some paths are ignored, 1: none are, anything else (128): not a work tree, or a
    # path git refuses (inside a submodule); the simple .gitignore parser takes over.
    if proc.returncode not in (0, 1):
        return None
    names = {n for n in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if n}
    return {p for p, rel in zip(candidates, relative, strict=True) if rel in names}


@dataclass(frozen=True)
class _Pattern:
    base: Path
    glob: str
    negated: bool
    dir_only: bool
    anchored: bool


@dataclass(frozen=True)
class GitignoreMatcher:
    """A small `.gitignore` reader for trees that are not git work trees.

    Supports comments, `!` negation, trailing `/` (directories only), anchored patterns
    (containing a `/`), `*`, `?`, `[...]` and `**`; the last matching pattern wins.
    """

    patterns: tuple[_Pattern, ...] = field(default=())

    @classmethod
    def load(cls, files: Iterable[Path]) -> GitignoreMatcher:
        """Read the given `.gitignore` files (unreadable ones are skipped)."""
        patterns: list[_Pattern] = []
        # Shallow files first, so deeper (more specific) files win as in git.
        for file in sorted(files, key=lambda f: len(f.parts)):
            try:
                lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            patterns.extend(p for line in lines if (p := _parse_line(file.parent, line)))
        return cls(tuple(patterns))

    def ignores(self, path: Path, root: Path) -> bool:
        """True when `path` or one of its directories below `root` is ignored."""
        try:
            parts = path.relative_to(root).parts
        except ValueError:
            return False
        current = root
        for index, part in enumerate(parts):
            current = current / part
            if self._matches(current, is_dir=index < len(parts) - 1):
                return True
        return False

    def _matches(self, path: Path, *, is_dir: bool) -> bool:
        ignored = False
        for pattern in self.patterns:
            try:
                relative = path.relative_to(pattern.base).as_posix()
            except ValueError:
                continue
            if pattern.dir_only and not is_dir:
                continue
            subject = relative if pattern.anchored else path.name
            if _glob_match(subject, pattern.glob):
                ignored = not pattern.negated
        return ignored


def _parse_line(base: Path, line: str) -> _Pattern | None:
    line = line.rstrip()
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    if line.startswith("\\"):  # `\#file` and `\!file` name files starting with # or !
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    anchored = "/" in line
    line = line.lstrip("/")
    if not line:
        return None
    return _Pattern(base, line, negated, dir_only, anchored)


def _glob_match(subject: str, glob: str) -> bool:
    if glob.startswith("**/"):
        # `**/x` also matches `x` at the top level.
        return _glob_match(subject, glob[3:]) or fnmatch.fnmatchcase(subject, glob)
    # fnmatch's `*` crosses `/`; compare segment by segment so `a/*.py` stays one level deep.
    if "**" in glob:
        # `a/**/b` also matches `a/b`.
        collapsed = glob.replace("/**/", "/")
        return fnmatch.fnmatchcase(subject, glob) or fnmatch.fnmatchcase(subject, collapsed)
    subject_parts = subject.split("/")
    glob_parts = glob.split("/")
    return len(subject_parts) == len(glob_parts) and all(
        fnmatch.fnmatchcase(s, g) for s, g in zip(subject_parts, glob_parts, strict=True)
    )


# -- reading and writing ---------------------------------------------------------------------


@dataclass(frozen=True)
class DecodedSource:
    """A file's text (line breaks untouched) and whether it started with a UTF-8 BOM."""

    text: str
    bom: bool

    def encode(self, text: str) -> bytes:
        """Encode `text` the way this file was encoded (UTF-8, BOM kept)."""
        data = text.encode("utf-8")
        return BOM + data if self.bom else data


class NotUtf8Error(ValueError):
    """The bytes are not UTF-8; carries the 1-based line and column of the first bad byte."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def decode(data: bytes) -> DecodedSource:
    """Decode UTF-8 (with or without BOM) without translating line breaks."""
    bom = data.startswith(BOM)
    body = data[len(BOM) :] if bom else data
    try:
        return DecodedSource(body.decode("utf-8"), bom)
    except UnicodeDecodeError as exc:
        line_start = body.rfind(b"\n", 0, exc.start) + 1
        line = body.count(b"\n", 0, exc.start) + 1
        column = len(body[line_start : exc.start].decode("utf-8", "replace")) + 1
        bad = body[exc.start : exc.start + 1].hex()
        raise NotUtf8Error(
            f"file is not valid UTF-8 (byte 0x{bad}: {exc.reason})", line, column
        ) from None


def read_source(path: Path) -> DecodedSource:
    """Read and decode a file; raises `OSError` or `NotUtf8Error`."""
    return decode(path.read_bytes())


def write_atomic(path: Path, data: bytes) -> None:
    """Replace the file's content atomically, keeping its permission bits.

    A temporary file in the same directory is renamed over the target, so a crash or a
    full disk never leaves a half-written source file. Symlinks are followed (the link stays).
    """
    import tempfile  # only when writing: it pulls in shutil and random

    target = Path(os.path.realpath(path))
    mode = stat.S_IMODE(target.stat().st_mode)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
