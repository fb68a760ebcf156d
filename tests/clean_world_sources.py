"""The clean world's sources: pinned PyPI archives, downloaded, hash-checked and unpacked.

`tests/clean_world/manifest.toml` names each package, its exact release, the archive of that
release, the archive's sha256, its license and the paths inside it to check. This module reads
the manifest, downloads and unpacks the archives into a cache outside the repository, and
lists the files to check. It is shared by `tests/test_clean_world.py` (GradGuard must report
nothing on these files) and `benchmarks/precision.py` (they count as negatives).

    python tests/clean_world_sources.py     # what scripts/setup.d/50-clean-world.sh runs

The cache is `$GRADGUARD_CLEAN_WORLD_CACHE`, else `${XDG_CACHE_HOME:-~/.cache}/
gradguard-clean-world`: `archives/` holds the downloaded files, `unpacked/<name>-<version>/`
the contents of each (an sdist without its top folder, a wheel as it is), with a `.complete`
stamp holding the sha256 of the archive it was unpacked from. A package whose stamp matches
the manifest is not downloaded again, so a second run needs no network and takes well under a
second. Nothing is imported or run from the archives; only files are written.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradguard.core.engine import CheckResult

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "tests" / "clean_world" / "manifest.toml"
SETUP_COMMAND = "scripts/setup.d/50-clean-world.sh"
INDEX = "https://pypi.org/simple"
_STAMP = ".complete"


class CleanWorldError(RuntimeError):
    """The clean world cannot be fetched, or is not (or no longer) in the cache."""


@dataclass(frozen=True)
class Package:
    """One pinned release and the paths inside its archive to check."""

    name: str
    version: str
    archive: str
    sha256: str
    license: str
    check: tuple[str, ...]
    exclude: tuple[str, ...]

    @property
    def key(self) -> str:
        """`<name>-<version>`: the folder under `unpacked/` and the prefix of case ids."""
        return f"{self.name}-{self.version}"

    @property
    def is_sdist(self) -> bool:
        """An sdist (`.tar.gz`, one top folder) rather than a wheel (`.whl`, a zip)."""
        return self.archive.endswith(".tar.gz")


@dataclass(frozen=True)
class TrueFinding:
    """A finding on clean-world code judged by hand to be a real bug in the package."""

    file: str
    line: int
    code: str
    why: str


@dataclass(frozen=True)
class Manifest:
    """Everything `manifest.toml` says."""

    packages: tuple[Package, ...]
    true_findings: tuple[TrueFinding, ...]


def load_manifest(path: Path = MANIFEST) -> Manifest:
    """Parse the manifest; a missing or mistyped field raises KeyError or TypeError."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    packages = tuple(
        Package(
            name=str(entry["name"]),
            version=str(entry["version"]),
            archive=str(entry["archive"]),
            sha256=str(entry["sha256"]),
            license=str(entry["license"]),
            check=tuple(str(p) for p in entry["check"]),
            exclude=tuple(str(p) for p in entry.get("exclude", [])),
        )
        for entry in data["package"]
    )
    findings = tuple(
        TrueFinding(
            file=str(entry["file"]),
            line=int(entry["line"]),
            code=str(entry["code"]),
            why=str(entry["why"]),
        )
        for entry in data.get("true_finding", [])
    )
    return Manifest(packages, findings)


def cache_dir() -> Path:
    """Where archives are downloaded and unpacked (never inside the repository)."""
    explicit = os.environ.get("GRADGUARD_CLEAN_WORLD_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "gradguard-clean-world"


def unpacked_dir(package: Package, cache: Path | None = None) -> Path:
    """The folder holding the package's archive contents."""
    return (cache if cache is not None else cache_dir()) / "unpacked" / package.key


def is_unpacked(package: Package, cache: Path | None = None) -> bool:
    """True when the cache holds this exact archive (same sha256), fully unpacked."""
    stamp = unpacked_dir(package, cache) / _STAMP
    return stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == package.sha256


def missing_message(packages: list[Package]) -> str:
    """What to tell someone whose cache lacks (or holds stale copies of) these packages."""
    names = ", ".join(f"{p.name} {p.version}" for p in packages)
    return (
        f"the clean world is not in the cache {cache_dir()} ({names}): run `{SETUP_COMMAND}` "
        "(or `./scripts/test`, which runs it) to download and unpack the pinned archives"
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _mentions_torch(path: Path) -> bool:
    return "torch" in path.read_text(encoding="utf-8", errors="replace")


def _is_excluded(relative: PurePosixPath, exclude: tuple[str, ...]) -> bool:
    return any(
        relative == PurePosixPath(e) or PurePosixPath(e) in relative.parents for e in exclude
    )


def files(package: Package, cache: Path | None = None) -> list[Path]:
    """Every `*.py` file under the package's `check` paths (minus `exclude`) mentioning torch.

    Raises CleanWorldError when the package is not unpacked or a `check` path is absent, so a
    renamed folder in a new release cannot quietly shrink the set.
    """
    if not is_unpacked(package, cache):
        raise CleanWorldError(missing_message([package]))
    root = unpacked_dir(package, cache)
    found: set[Path] = set()
    for entry in package.check:
        target = root / entry
        if target.is_file():
            candidates = [target]
        elif target.is_dir():
            candidates = list(target.rglob("*.py"))
        else:
            raise CleanWorldError(f"{package.key}: `{entry}` is not in the archive")
        for path in candidates:
            relative = PurePosixPath(path.relative_to(root).as_posix())
            if path.suffix == ".py" and not _is_excluded(relative, package.exclude):
                found.add(path)
    return sorted(path for path in found if _mentions_torch(path))


def case_id(package: Package, path: Path, cache: Path | None = None) -> str:
    """`<name>-<version>/<path inside the archive>`: how tests and the docs name a file."""
    return f"{package.key}/{path.relative_to(unpacked_dir(package, cache)).as_posix()}"


def all_files(
    manifest: Manifest | None = None, cache: Path | None = None
) -> list[tuple[str, Path]]:
    """(case id, path) of every file to check, in manifest order; CleanWorldError if any
    package is missing from the cache."""
    manifest = manifest if manifest is not None else load_manifest()
    missing = [p for p in manifest.packages if not is_unpacked(p, cache)]
    if missing:
        raise CleanWorldError(missing_message(missing))
    return [(case_id(p, f, cache), f) for p in manifest.packages for f in files(p, cache)]


@functools.cache
def _check_text(case: str, text: str) -> CheckResult:
    # Imported here so that fetching (the setup step) needs nothing but the standard library.
    from gradguard.core.engine import check_source

    return check_source(text, path=case)


def check(case: str, path: Path) -> CheckResult:
    """GradGuard's findings on one clean-world file, named by its case id in messages.

    Remembered for the life of the process: the clean-world test and the precision table
    check the same 200k lines with the same rules, and need not pay for it twice.
    """
    from gradguard.project import session

    # As `gradguard check` would: names imported from the package's other files are known.
    with session.checking(path):
        return _check_text(case, path.read_text(encoding="utf-8"))


def _safe_relative(name: str) -> PurePosixPath | None:
    """The member's path, or None for one that would land outside the target folder."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return None
    return path


def _members(package: Package, archive: Path) -> Iterator[tuple[PurePosixPath, bytes]]:
    """(path inside the package root, content) of every regular file in the archive."""
    if package.is_sdist:
        with tarfile.open(archive, "r:gz") as tar:
            for member in tar.getmembers():
                path = _safe_relative(member.name)
                if path is None:
                    raise CleanWorldError(f"{package.archive}: unsafe member {member.name!r}")
                if not member.isfile() or len(path.parts) < 2:
                    continue  # directories, links, and files beside the sdist's top folder
                stream = tar.extractfile(member)
                if stream is not None:
                    yield PurePosixPath(*path.parts[1:]), stream.read()
    else:
        with zipfile.ZipFile(archive) as wheel:
            for info in wheel.infolist():
                path = _safe_relative(info.filename)
                if path is None:
                    raise CleanWorldError(f"{package.archive}: unsafe member {info.filename!r}")
                if not info.is_dir():
                    yield path, wheel.read(info)


def unpack(package: Package, archive: Path, cache: Path | None = None) -> Path:
    """Check the archive's sha256 against the manifest, then unpack it; returns the folder.

    The contents are written to a temporary folder and moved into place with the stamp, so an
    interrupted run never leaves a half-unpacked package that looks complete.
    """
    actual = _sha256(archive)
    if actual != package.sha256:
        raise CleanWorldError(
            f"{package.archive}: sha256 {actual} does not match the manifest's {package.sha256}"
        )
    target = unpacked_dir(package, cache)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{package.key}.", dir=target.parent))
    try:
        for relative, content in _members(package, archive):
            out = staging.joinpath(*relative.parts)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(content)
        (staging / _STAMP).write_text(package.sha256 + "\n", encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return target


def archive_url(package: Package, index: str = INDEX) -> str:
    """The download URL of the pinned file, from the index's JSON simple API (PEP 691)."""
    project = package.name.lower().replace("_", "-").replace(".", "-")
    request = urllib.request.Request(
        f"{index}/{project}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        listing = json.load(response)
    for entry in listing.get("files", []):
        if entry.get("filename") == package.archive:
            return str(entry["url"])
    raise CleanWorldError(f"{index}/{project}/ does not list {package.archive}")


def _download(url: str, into: Path) -> None:
    partial = into.with_name(into.name + ".part")
    with urllib.request.urlopen(url, timeout=120) as response, partial.open("wb") as out:
        shutil.copyfileobj(response, out)
    partial.replace(into)


def fetch(
    package: Package,
    cache: Path | None = None,
    download: Callable[[str, Path], None] = _download,
) -> str:
    """Make sure the package is unpacked in the cache; says what it had to do."""
    if is_unpacked(package, cache):
        return "cached"
    archives = (cache if cache is not None else cache_dir()) / "archives"
    archives.mkdir(parents=True, exist_ok=True)
    archive = archives / package.archive
    done = "unpacked"
    if not archive.is_file() or _sha256(archive) != package.sha256:
        download(archive_url(package), archive)
        done = "downloaded and unpacked"
    unpack(package, archive, cache)
    return done


def main() -> int:
    """Fetch every package in the manifest; print one line each."""
    cache = cache_dir()
    try:
        for package in load_manifest().packages:
            print(f"clean world: {package.key} {fetch(package, cache)}")
    except (CleanWorldError, OSError) as error:
        print(f"clean world: {error}", file=sys.stderr)
        return 1
    print(f"clean world: ready in {cache}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
