"""Which files GradGuard looks at, and reading and writing them byte-faithfully.

One pipeline for `gradguard check` and the language server's workspace scope: discovery
walks directories for `*.py` and `*.ipynb`, skipping hidden and tool directories,
virtual environments (any directory holding a `pyvenv.cfg`) and whatever git ignores.
Explicitly named files are always checked. Reading keeps what a fix must preserve (the
UTF-8 BOM, a PEP 263 coding cookie's encoding, the line breaks); writing is atomic and keeps
the permission bits.
"""

from __future__ import annotations

import codecs
import contextlib
import fnmatch
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gradguard.core.limits import MAX_SOURCE_BYTES, too_large_message

# Directories that never hold the user's own sources (virtualenvs, installed packages, build
# output, caches). Hidden directories (`.git`, `.venv`, `.tox`) are skipped as well, and so
# is any directory holding a `pyvenv.cfg` (a virtual environment, whatever its name).
SKIP_DIRS = frozenset(
    {"venv", "build", "dist", "node_modules", "site-packages", "__pycache__", "__pypackages__"}
)
SOURCE_SUFFIXES = (".py", ".ipynb")
VENV_MARKER = "pyvenv.cfg"
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Discovery:
    """The files to check, in a stable order, and what could not be looked at.

    `missing` and `errors` come from paths named on the command line or directories that
    could not be read: the run cannot check what the user asked for. `skipped` are entries a
    directory walk found that are not regular files (a FIFO, a device, a dangling or looping
    link): named so the user knows, but not an error. `outside` are walked files that are
    symlinks leading out of the directory that was walked: checked, never rewritten.
    """

    files: tuple[Path, ...]
    missing: tuple[str, ...] = ()
    errors: tuple[tuple[str, str], ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    outside: frozenset[Path] = frozenset()


def discover(paths: Sequence[str]) -> Discovery:
    """Expand files and directories into the list of files to check (deduplicated, sorted)."""
    chosen: dict[str, Path] = {}
    missing: list[str] = []
    errors: list[tuple[str, str]] = []
    skipped: list[tuple[str, str]] = []
    outside: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        try:
            info = os.stat(path)
        except FileNotFoundError:
            if os.path.islink(path):
                errors.append((raw, "cannot read: the symbolic link points to nothing"))
            else:
                missing.append(raw)
            continue
        except OSError as exc:
            errors.append((raw, f"cannot read: {exc.strerror or exc}"))
            continue
        if stat.S_ISDIR(info.st_mode):
            walked = walk(path, errors=errors)
            real_root = os.path.realpath(path)
            for found in walked:
                try:
                    kind = os.stat(found).st_mode
                except OSError as exc:
                    skipped.append((str(found), f"skipped: {exc.strerror or exc}"))
                    continue
                if not stat.S_ISREG(kind):
                    skipped.append((str(found), f"skipped: {file_kind(kind)}, not a regular file"))
                    continue
                if not _inside(os.path.realpath(found), real_root):
                    outside.add(found)
                chosen.setdefault(_key(found), found)
        else:
            # Named explicitly: reading reports a FIFO or device as an error of its own.
            chosen.setdefault(_key(path), path)
    files = sorted(chosen.values(), key=lambda p: p.as_posix())
    return Discovery(
        tuple(files), tuple(missing), tuple(errors), tuple(skipped), frozenset(outside)
    )


def _key(path: Path) -> str:
    # os.path.realpath never raises (Path.resolve raises RuntimeError on a symlink loop).
    return os.path.realpath(path)


def _inside(real_path: str, real_root: str) -> bool:
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "a special file"


def walk(root: Path, errors: list[tuple[str, str]] | None = None) -> list[Path]:
    """The source files under `root`, without skipped directories and git-ignored paths.

    Directories that cannot be listed are added to `errors` (path, message) when given.
    """
    candidates: list[Path] = []
    ignore_files: list[Path] = []

    def unreadable(exc: OSError) -> None:
        if errors is not None:
            where = exc.filename if exc.filename is not None else root
            errors.append((str(where), f"cannot read the directory: {exc.strerror or exc}"))

    for folder, dirnames, filenames in os.walk(root, onerror=unreadable):
        if VENV_MARKER in filenames and folder != str(root):
            dirnames[:] = []  # a virtual environment: none of it is the user's code
            continue
        # Pruning in place keeps os.walk out of virtualenvs and caches entirely.
        dirnames[:] = sorted(d for d in dirnames if not skipped_dir(d))
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


def skipped_dir(name: str) -> bool:
    """True for a directory name a walk never enters (hidden, or in `SKIP_DIRS`)."""
    return name.startswith(".") or name in SKIP_DIRS


def _is_source(name: str) -> bool:
    return name.endswith(SOURCE_SUFFIXES)


def git_ignored(root: Path, candidates: Sequence[Path]) -> set[Path] | None:
    """Ask git which of `candidates` it ignores; `None` when `root` is not in a git work tree."""
    import subprocess

    git = git_executable()
    if git is None:
        return None
    relative = [os.path.relpath(p, root) for p in candidates]
    try:
        proc = subprocess.run(
            # A cloned repository's .git/config may set core.fsmonitor to any command, which
            # git runs when it reads the index: never let a checked project run code.
            [git, "-c", "core.fsmonitor=false", "check-ignore", "--stdin", "-z"],
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


def git_executable() -> str | None:
    """The absolute path of `git` on PATH, looking only in absolute PATH entries.

    An empty or relative PATH entry means "the working directory", and git runs with the
    checked tree as its working directory: a `git` file planted there must never run.
    """
    import shutil

    entries = os.environ.get("PATH", os.defpath).split(os.pathsep)
    safe = os.pathsep.join(e for e in entries if e and os.path.isabs(e))
    return shutil.which("git", path=safe) if safe else None


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
    """A file's text (line breaks untouched), whether it started with a UTF-8 BOM, and the
    encoding it was read in (UTF-8 unless a PEP 263 coding cookie names another)."""

    text: str
    bom: bool
    encoding: str = "utf-8"

    def encode(self, text: str) -> bytes:
        """Encode `text` the way this file was encoded (its encoding, BOM kept).

        Raises `NotEncodableError` when a fix brought in a character the file's declared
        encoding cannot hold (a `latin-1` file and a non-Latin character).
        """
        try:
            data = text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            bad = text[exc.start : exc.end]
            raise NotEncodableError(
                f"the fixed text has {bad!r}, which the file's encoding "
                f"({self.encoding}) cannot hold"
            ) from None
        except UnicodeError as exc:
            raise NotEncodableError(f"cannot encode in {self.encoding}: {exc}") from None
        return BOM + data if self.bom else data


class NotEncodableError(OSError):
    """Text cannot be written in the file's declared encoding (nothing is written)."""


class NotUtf8Error(ValueError):
    """The bytes cannot be decoded (not UTF-8, or not the encoding their coding cookie names,
    or a cookie naming no known encoding); carries the 1-based line and column of the problem.
    """

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


# PEP 263: `# -*- coding: latin-1 -*-` or `# vim: set fileencoding=...` on line 1 or 2.
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_BLANK_OR_COMMENT = re.compile(rb"^[ \t\f]*(?:[#\r\n]|$)")


def coding_cookie(data: bytes) -> tuple[str, int] | None:
    """The encoding a PEP 263 cookie declares, and the (1-based) line it is on."""
    lines = data.splitlines(keepends=True)[:2]
    for number, line in enumerate(lines, start=1):
        match = _COOKIE.match(line)
        if match is not None:
            return match.group(1).decode("ascii", "replace"), number
        if not _BLANK_OR_COMMENT.match(line):
            return None  # the cookie may sit on line 2 only below a comment or blank line
    return None


def decode(data: bytes) -> DecodedSource:
    """Decode a source file as Python does, without translating line breaks.

    UTF-8 (with or without BOM) unless a PEP 263 coding cookie on line 1 or 2 names another
    encoding. Raises `NotUtf8Error` with the position of the first byte that does not decode,
    or of a cookie that names no known encoding (or contradicts the BOM).
    """
    bom = data.startswith(BOM)
    body = data[len(BOM) :] if bom else data
    encoding = _declared_encoding(body, bom)
    try:
        return DecodedSource(body.decode(encoding), bom, encoding)
    except UnicodeDecodeError as exc:
        line_start = body.rfind(b"\n", 0, exc.start) + 1
        line = body.count(b"\n", 0, exc.start) + 1
        column = _column(body[line_start : exc.start], encoding)
        bad = body[exc.start : exc.start + 1].hex()
        name = "UTF-8" if encoding == "utf-8" else encoding
        raise NotUtf8Error(
            f"file is not valid {name} (byte 0x{bad}: {exc.reason})", line, column
        ) from None
    except UnicodeError as exc:  # a codec that fails without a position (`idna`)
        raise NotUtf8Error(f"file is not valid {encoding} ({exc})", 1, 1) from None


def _column(line_head: bytes, encoding: str) -> int:
    """The 1-based column (in characters) just after `line_head`, the start of a line."""
    try:
        return len(line_head.decode(encoding, "replace")) + 1
    except UnicodeError:  # a codec without error handlers (`idna`): count bytes
        return len(line_head) + 1


def _declared_encoding(body: bytes, bom: bool) -> str:
    """The codec to decode `body` with: `utf-8`, or the name a cookie gives."""
    if b"coding" not in body[:400]:  # the cheap common case: no cookie can be there
        return "utf-8"
    cookie = coding_cookie(body)
    if cookie is None:
        return "utf-8"
    name, line = cookie
    try:
        encoding = codecs.lookup(name).name
        with contextlib.suppress(UnicodeError):
            b"# ".decode(name)  # `hex`, `rot13`, ...: codecs, but not text encodings
    except LookupError:
        raise NotUtf8Error(f"unknown encoding {name!r} in the coding cookie", line, 1) from None
    if encoding in ("utf-8", "utf-8-sig"):
        return "utf-8"
    if bom:
        raise NotUtf8Error(f"the file starts with a UTF-8 BOM but declares {name!r}", line, 1)
    return name  # as the file spells it (a valid codec name): messages quote it


class NotRegularFileError(OSError):
    """The path is a FIFO, a device or another file that is not a regular file."""


class TooLargeError(OSError):
    """The file is larger than GradGuard analyses (see `gradguard.core.limits`)."""

    def __init__(self, size: int) -> None:
        super().__init__(too_large_message(size))
        self.size = size


def read_source(path: Path, limit: int = MAX_SOURCE_BYTES) -> DecodedSource:
    """Read and decode a regular file of at most `limit` bytes (see `read_bytes`)."""
    return decode(read_bytes(path, limit))


def read_bytes(path: Path, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """Read a regular file of at most `limit` bytes.

    Raises `NotRegularFileError` for a FIFO or device without blocking on it (the file is
    opened non-blocking and checked with `fstat` before any read), `TooLargeError` above the
    limit (a link to `/dev/zero` can never be read until memory runs out) and any other
    `OSError` from the system.
    """
    flags = os.O_RDONLY
    for name in ("O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC", "O_BINARY"):
        flags |= getattr(os, name, 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(f"{file_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise TooLargeError(info.st_size)
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # the file grew while it was read
                raise TooLargeError(size)
    finally:
        os.close(fd)
    return b"".join(chunks)


class FileChangedError(OSError):
    """The file changed on disk between reading and writing: writing would lose that edit."""


def write_atomic(path: Path, data: bytes, *, expected: bytes | None = None) -> None:
    """Replace the file's content, keeping its permission bits, owner and hard links.

    A temporary file in the same directory is renamed over the target, so a crash or a
    full disk never leaves a half-written source file. Symlinks are followed (the link stays).
    When `expected` is given and the file no longer holds exactly those bytes (an editor saved
    it meanwhile), nothing is written and `FileChangedError` is raised. A file with several
    hard links, or one whose owner the temporary file cannot take (not running as that user
    or root), is rewritten in place instead, so the links and the owner survive.
    """
    target = Path(os.path.realpath(path))
    info = target.stat()
    if expected is not None and _current_bytes(target, len(expected)) != expected:
        raise FileChangedError("the file changed on disk while it was checked")
    if info.st_nlink > 1:
        _write_in_place(target, data)
        return
    import tempfile  # only when writing: it pulls in shutil and random

    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, stat.S_IMODE(info.st_mode))
        if not _take_owner(temp, info):
            os.unlink(temp)
            _write_in_place(target, data)
            return
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def _current_bytes(path: Path, expected_size: int) -> bytes | None:
    """The file's bytes now, or `None` when its size alone shows it changed."""
    if path.stat().st_size != expected_size:
        return None
    return path.read_bytes()


def _take_owner(temp: str, info: os.stat_result) -> bool:
    """Give `temp` the original file's owner and group; False when that is not allowed."""
    created = os.stat(temp)
    if (created.st_uid, created.st_gid) == (info.st_uid, info.st_gid):
        return True
    chown = getattr(os, "chown", None)
    if chown is None:  # Windows: no POSIX owners to keep
        return True
    try:
        chown(temp, info.st_uid, info.st_gid)
    except PermissionError:
        return False
    return True


def _write_in_place(target: Path, data: bytes) -> None:
    """Overwrite the file's content through its own inode (keeps hard links and the owner)."""
    with open(target, "r+b") as handle:
        handle.write(data)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())
