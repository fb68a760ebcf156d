"""Clean real-world training scripts: correct code from published projects gets no finding.

The scripts in `tests/clean_world/` are vendored unchanged from packages on PyPI (sources,
versions, licenses and hashes in its README). Every rule runs on every file; any finding is
a false positive. A known false positive is a strict xfail that names the rule: it fails
the suite as soon as the rule is fixed (remove the entry then), and a finding of any other
rule on that file is still a plain failure.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from gradguard.core.engine import check_source

ROOT = Path(__file__).resolve().parent.parent
CLEAN_WORLD = ROOT / "tests" / "clean_world"
README = CLEAN_WORLD / "README.md"


class KnownFalsePositive(AssertionError):
    """A rule listed in KNOWN_FALSE_POSITIVES reported on the file it is listed for."""


# file (relative to tests/clean_world) -> (rule codes, why the finding is wrong)
KNOWN_FALSE_POSITIVES: dict[str, tuple[frozenset[str], str]] = {}


def clean_files() -> list[Path]:
    """Every vendored clean script."""
    return sorted(CLEAN_WORLD.rglob("*.py"))


def _case_id(path: Path) -> str:
    return path.relative_to(CLEAN_WORLD).as_posix()


def _cases() -> list[object]:
    cases: list[object] = []
    for path in clean_files():
        known = KNOWN_FALSE_POSITIVES.get(_case_id(path))
        marks = (
            [pytest.mark.xfail(raises=KnownFalsePositive, strict=True, reason=known[1])]
            if known
            else []
        )
        cases.append(pytest.param(path, marks=marks, id=_case_id(path)))
    return cases


def test_the_collection_is_there() -> None:
    """Guards against an empty glob, and keeps the README's inventory complete."""
    files = clean_files()
    assert len(files) >= 15
    readme = README.read_text(encoding="utf-8")
    for path in files:
        assert f"`{_case_id(path)}`" in readme, f"{_case_id(path)} is not listed in the README"
    for name in KNOWN_FALSE_POSITIVES:
        assert (CLEAN_WORLD / name).is_file(), name


def test_files_are_unchanged_copies() -> None:
    """Each file's sha256 in the README matches: the files are the published code, unedited."""
    readme = README.read_text(encoding="utf-8")
    listed = dict(re.findall(r"`([\w/.-]+\.py)`[^\n]*?`([0-9a-f]{64})`", readme))
    for path in clean_files():
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert listed.get(_case_id(path)) == digest, f"{_case_id(path)} differs from the README"


@pytest.mark.parametrize("path", _cases())
def test_no_rule_fires_on_clean_code(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    result = check_source(text, path=str(path))
    assert result.parse_error is None, result.parse_error
    assert not result.rule_errors, result.rule_errors
    assert not result.skipped
    known = KNOWN_FALSE_POSITIVES.get(_case_id(path), (frozenset(), ""))[0]
    report = [
        f"line {f.range.start.line + 1} {f.code}: {f.message}"
        for f in result.findings
        if f.code not in known
    ]
    assert not report, "false positives on clean code:\n" + "\n".join(report)
    expected_failures = [
        f"line {f.range.start.line + 1} {f.code}" for f in result.findings if f.code in known
    ]
    if expected_failures:
        raise KnownFalsePositive(", ".join(expected_failures))
