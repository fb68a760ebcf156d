"""Clean real-world PyTorch code: correct code from published packages gets no finding.

The code is not in this repository: `tests/clean_world/manifest.toml` pins releases on PyPI
(archive, sha256, license, the folders to check), and `scripts/setup.d/50-clean-world.sh`
downloads, checks and unpacks them into a cache outside it (`tests/clean_world_sources.py`).
Every `*.py` file of those folders that mentions `torch` is one case, and every rule runs on
it. A missing cache fails the suite and names the setup command; it is never a skip.

Any finding is a false positive, with two exceptions, each judged by hand:

* a known false positive (`KNOWN_FALSE_POSITIVES`) is a strict xfail that names the rule: it
  fails the suite as soon as the rule is fixed (remove the entry then), and a finding of any
  other rule on that file is still a plain failure;
* a known true finding (`[[true_finding]]` in the manifest) is a real bug in the package's
  code: it must be reported, exactly at its line, and the precision table counts it as a true
  positive.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import clean_world_sources as cw
import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "tests" / "clean_world" / "README.md"
MANIFEST = cw.load_manifest()


class KnownFalsePositive(AssertionError):
    """A rule listed in KNOWN_FALSE_POSITIVES reported on the file it is listed for."""


# case id ("<name>-<version>/<path in the archive>") -> (rule codes, why the finding is wrong)
KNOWN_FALSE_POSITIVES: dict[str, tuple[frozenset[str], str]] = {}


def _true_findings(case: str) -> set[tuple[int, str]]:
    return {(t.line, t.code) for t in MANIFEST.true_findings if t.file == case}


def _cases() -> list[object]:
    """One case per file; a package missing from the cache is one failing case instead."""
    cases: list[object] = []
    for package in MANIFEST.packages:
        if not cw.is_unpacked(package):
            cases.append(pytest.param(package.key, None, id=f"{package.key}-not-in-cache"))
            continue
        for path in cw.files(package):
            case = cw.case_id(package, path)
            known = KNOWN_FALSE_POSITIVES.get(case)
            marks = (
                [pytest.mark.xfail(raises=KnownFalsePositive, strict=True, reason=known[1])]
                if known
                else []
            )
            cases.append(pytest.param(case, path, marks=marks, id=case))
    return cases


def test_every_package_is_in_the_cache() -> None:
    missing = [p for p in MANIFEST.packages if not cw.is_unpacked(p)]
    assert not missing, cw.missing_message(missing)


def test_the_collection_is_there() -> None:
    """Guards against an empty glob or a folder renamed away, and keeps the lists honest."""
    cases = dict(cw.all_files(MANIFEST))
    assert len(MANIFEST.packages) >= 11
    assert len(cases) >= 500
    for package in MANIFEST.packages:
        assert cw.files(package), f"{package.key}: nothing to check"
    for case in KNOWN_FALSE_POSITIVES:
        assert case in cases, f"KNOWN_FALSE_POSITIVES names {case}, which is not checked"
    for finding in MANIFEST.true_findings:
        assert finding.file in cases, f"the manifest's true finding names {finding.file}"
        assert finding.why.strip(), finding


def test_the_readme_lists_every_package() -> None:
    readme = README.read_text(encoding="utf-8")
    for package in MANIFEST.packages:
        for fact in (package.archive, package.sha256, package.license, *package.check):
            assert fact in readme, f"the README does not list {package.key}'s {fact}"


def _tarball(path: Path, files: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_an_archive_with_the_wrong_hash_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "demo-1.0.tar.gz"
    _tarball(archive, {"demo-1.0/demo/train.py": b"import torch\n"})
    package = cw.Package("demo", "1.0", archive.name, "0" * 64, "MIT", ("demo",), ())
    with pytest.raises(cw.CleanWorldError, match="does not match"):
        cw.unpack(package, archive, tmp_path / "cache")
    assert not cw.is_unpacked(package, tmp_path / "cache")


def test_an_sdist_is_unpacked_without_its_top_folder(tmp_path: Path) -> None:
    archive = tmp_path / "demo-1.0.tar.gz"
    _tarball(
        archive,
        {
            "demo-1.0/demo/train.py": b"import torch\n",
            "demo-1.0/demo/util.py": b"x = 1\n",
            "demo-1.0/demo/tests/test_x.py": b"import torch\n",
        },
    )
    digest = cw._sha256(archive)
    package = cw.Package("demo", "1.0", archive.name, digest, "MIT", ("demo",), ("demo/tests",))
    cache = tmp_path / "cache"
    cw.unpack(package, archive, cache)
    assert cw.is_unpacked(package, cache)
    assert [cw.case_id(package, f, cache) for f in cw.files(package, cache)] == [
        "demo-1.0/demo/train.py"
    ]
    assert cw.fetch(package, cache, download=lambda url, into: pytest.fail(url)) == "cached"


def test_an_unsafe_member_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "demo-1.0.tar.gz"
    _tarball(archive, {"demo-1.0/../../escape.py": b"import torch\n"})
    package = cw.Package("demo", "1.0", archive.name, cw._sha256(archive), "MIT", ("demo",), ())
    with pytest.raises(cw.CleanWorldError, match="unsafe member"):
        cw.unpack(package, archive, tmp_path / "cache")
    assert not (tmp_path / "escape.py").exists()


@pytest.mark.parametrize(("case", "path"), _cases())
def test_no_rule_fires_on_clean_code(case: str, path: Path | None) -> None:
    if path is None:
        pytest.fail(cw.missing_message([p for p in MANIFEST.packages if p.key == case]))
    result = cw.check(case, path)
    assert result.parse_error is None, result.parse_error
    assert not result.rule_errors, result.rule_errors
    assert not result.skipped, result.too_large
    known = KNOWN_FALSE_POSITIVES.get(case, (frozenset(), ""))[0]
    true = _true_findings(case)
    got = {(f.range.start.line + 1, f.code) for f in result.findings}
    report = [
        f"line {f.range.start.line + 1} {f.code}: {f.message}"
        for f in result.findings
        if f.code not in known and (f.range.start.line + 1, f.code) not in true
    ]
    assert not report, "false positives on clean code:\n" + "\n".join(report)
    lost = sorted(true - got)
    assert not lost, f"known true findings no longer reported (see the manifest): {lost}"
    expected_failures = [
        f"line {f.range.start.line + 1} {f.code}" for f in result.findings if f.code in known
    ]
    if expected_failures:
        raise KnownFalsePositive(", ".join(expected_failures))
