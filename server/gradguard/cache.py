"""The results cache of `gradguard check`: `.gradguard_cache/`, like ruff's `.ruff_cache/`.

Where: `--cache-dir DIR`, else `$GRADGUARD_CACHE_DIR`, else `.gradguard_cache` in the project
root, the directory of the nearest `pyproject.toml` at or above the working directory (the
working directory itself when there is none). `--no-cache`, or `GRADGUARD_NO_CACHE` set to
anything but `""`, `0`, `false` or `no`, turns it off. The directory holds a `.gitignore`
that ignores everything in it and a `CACHEDIR.TAG`, so git and backup tools pass it over.

What: one entry per checked file, named by a hash of everything besides the file's content
that decides its findings: GradGuard's version, the Python version, the size and time stamp
of every module of the installed package (so an edited rule or analysis invalidates the
cache, as a new release does), the file's effective settings (`repr(Settings)`: selection,
ignores, severities, fix policy, the pyproject.toml they come from), and the file's path as
shown and as absolute path (`per-file-ignores` match on them). The entry stores the SHA-256
of the file's bytes and the outcome of the plain check (`gradguard.outcome.to_plain`, as
JSON): a hit needs the same bytes. An edited file overwrites its own entry, so the cache
grows with the number of files and settings, not with the number of edits.

Only plain checks use the cache: `--fix` and `--diff` compute fixes from the exact text
every time (a fix is validated against the source it edits). Outcomes that might not recur
(an internal error, a crashed rule) are not stored.

Never an error: an entry that cannot be read, is damaged or was written by something else is
a miss; a location that cannot be written to means nothing is stored. Writes go to a
temporary file in the entry's directory and are renamed into place, so a reader never sees
half an entry, and two processes writing the same entry leave one whole entry.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from gradguard import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from gradguard.core.settings import Settings
    from gradguard.outcome import FileOutcome

DIRECTORY_NAME = ".gradguard_cache"
ENV_DIRECTORY = "GRADGUARD_CACHE_DIR"
ENV_DISABLE = "GRADGUARD_NO_CACHE"
_OFF_VALUES = ("", "0", "false", "no")
_GITIGNORE = "# Created by GradGuard: everything in this directory is a cache.\n*\n"
# https://bford.info/cachedir/
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by GradGuard.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)
_FORMAT = 2  # bumped when the shape of an entry changes


def disabled_by_environment() -> bool:
    """True when `GRADGUARD_NO_CACHE` asks for no cache."""
    value = os.environ.get(ENV_DISABLE)
    return value is not None and value.strip().lower() not in _OFF_VALUES


def location(cache_dir: str | None = None, cwd: Path | None = None) -> Path:
    """The cache directory: `cache_dir`, else `$GRADGUARD_CACHE_DIR`, else the project's."""
    cwd = cwd or Path.cwd()
    chosen = cache_dir or os.environ.get(ENV_DIRECTORY)
    if chosen:
        return cwd / os.path.expanduser(chosen)
    return project_root(cwd) / DIRECTORY_NAME


def project_root(cwd: Path) -> Path:
    """The directory of the nearest `pyproject.toml` at or above `cwd`, else `cwd`."""
    for folder in (cwd, *cwd.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    return cwd


def implementation_fingerprint() -> str:
    """A hash of the GradGuard that produces results: version, Python, and every module of
    the package by name, size and modification time."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    digest.update(f"{_FORMAT}\0{__version__}\0{sys.version}\0".encode())
    for relative, size, mtime_ns in _module_stamps(str(package), ""):
        digest.update(f"{relative}\0{size}\0{mtime_ns}\0".encode())
    return digest.hexdigest()


def _module_stamps(folder: str, prefix: str) -> Iterator[tuple[str, int, int]]:
    """The `.py` files under `folder` as (path relative to the package, size, mtime in ns):
    each folder's files sorted by name, then its subfolders (but `__pycache__`) in name
    order, depth first, as `os.walk` lists them. Run on every cached check, so it uses
    `os.scandir` directly: cheaper than `os.walk` with `os.path.relpath` (start-up)."""
    try:
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError:
        return
    subfolders = []
    for entry in entries:
        try:
            is_folder = entry.is_dir()
        except OSError:
            is_folder = False
        if is_folder:
            if entry.name != "__pycache__" and not entry.is_symlink():
                subfolders.append(entry)
            continue
        if not entry.name.endswith(".py"):
            continue
        try:
            info = entry.stat()
        except OSError:
            continue
        yield prefix + entry.name, info.st_size, info.st_mtime_ns
    for entry in subfolders:
        yield from _module_stamps(entry.path, prefix + entry.name + os.sep)


@dataclass(frozen=True)
class Cache:
    """An open cache: its directory and the fingerprint of the running GradGuard."""

    directory: Path
    fingerprint: str

    @classmethod
    def open(cls, directory: Path) -> Cache:
        """A cache in `directory` (created on the first store, not before)."""
        return cls(directory, implementation_fingerprint())

    def entry(self, path: Path, display: str, settings: Settings, data: bytes) -> CacheEntry:
        """The entry for the file at `path` (shown as `display`) holding `data`."""
        name = hashlib.sha256(
            "\0".join((self.fingerprint, repr(settings), display, os.path.abspath(path))).encode(
                "utf-8", "surrogatepass"
            )
        ).hexdigest()
        content = hashlib.sha256(data).hexdigest()
        file = self.directory / __version__ / name[:2] / name[2:]
        return CacheEntry(self.directory, file, name, content)


@dataclass(frozen=True)
class CacheEntry:
    """One file's place in the cache and the content hash a stored outcome must match."""

    directory: Path
    file: Path
    key: str
    content: str

    def load(self) -> FileOutcome | None:
        """The stored outcome for this exact content, or None (a miss, whatever the reason)."""
        import json

        from gradguard.outcome import from_plain

        try:
            with open(self.file, "rb") as handle:
                entry = json.loads(handle.read())
            if not isinstance(entry, dict):
                return None
            if (entry.get("key"), entry.get("content")) != (self.key, self.content):
                return None
            if not _dependencies_unchanged(entry.get("depends")):
                return None
            return from_plain(entry.get("outcome"))
        except (OSError, ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            return None

    def store(self, outcome: FileOutcome, depends: Mapping[str, str] | None = None) -> None:
        """Store `outcome` for this content and the project files it rested on (path to
        content key, see `gradguard.project`); silently nothing when the cache cannot be
        written."""
        import json

        from gradguard.outcome import to_plain

        entry = {
            "key": self.key,
            "content": self.content,
            "outcome": to_plain(outcome),
            "depends": dict(depends or {}),
        }
        data = json.dumps(entry, separators=(",", ":")).encode("ascii")
        try:
            _prepare(self.directory)
            self.file.parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(self.file, data)
        except OSError:
            return


def _dependencies_unchanged(depends: object) -> bool:
    """True when every project file a stored outcome rested on still has the same content."""
    if not isinstance(depends, dict):
        return False
    if not depends:
        return True
    from gradguard.project.content import current_key
    from gradguard.project.resolve import ABSENT

    return all(
        isinstance(path, str) and (current_key(path) or ABSENT) == key
        for path, key in depends.items()
    )


_prepared: set[Path] = set()


def _prepare(directory: Path) -> None:
    """Create the cache directory with its `.gitignore` and `CACHEDIR.TAG` (once a process)."""
    if directory in _prepared:
        return
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
        if not (directory / name).is_file():
            _write_atomic(directory / name, text.encode("ascii"))
    _prepared.add(directory)


def _write_atomic(target: Path, data: bytes) -> None:
    """Write `data` to a temporary file next to `target` and rename it into place."""
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(temp, "wb") as handle:
            handle.write(data)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
