"""The results cache: same output with and without it, invalidated by edits and settings,
never an error, and where ruff users expect it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import run_gradguard

from gradguard import cache
from gradguard.cli import CheckOptions, run_check
from gradguard.core.engine import check_source
from gradguard.core.rule import all_rules
from gradguard.outcome import ERROR, FileOutcome, Message, from_plain, to_plain

SAFE_GG201 = next(i.code for r in all_rules() if r.code == "GG201" for i in r.invalid if i.fixed)
GG101 = next(i.code for r in all_rules() if r.code == "GG101" for i in r.invalid)


def project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n', encoding="utf-8")
    (root / "src" / "rnn.py").write_text(SAFE_GG201, encoding="utf-8")
    (root / "src" / "no_grad.py").write_text(GG101, encoding="utf-8")
    (root / "src" / "broken.py").write_text("import torch\ndef f(:\n", encoding="utf-8")
    return root


def check(cwd: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, bytes, str]:
    environment = {"GRADGUARD_CACHE_DIR": "", **(env or {})}  # the default location
    done = run_gradguard(["check", *args], cwd=cwd, env=environment)
    return done.code, done.stdout_bytes, done.stderr


def entries(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.is_file() and p.parent != directory)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_a_warm_run_reports_exactly_what_a_cold_one_does(tmp_path: Path, fmt: str) -> None:
    root = project(tmp_path)
    cold = check(root, "--output-format", fmt)
    warm = check(root, "--output-format", fmt)
    uncached = check(root, "--output-format", fmt, "--no-cache")
    assert cold == warm == uncached
    assert cold[0] == 2  # findings and a file that does not parse
    assert len(entries(root / ".gradguard_cache")) == 3


def test_the_cache_lives_in_the_project_root_and_says_what_it_is(tmp_path: Path) -> None:
    root = project(tmp_path)
    check(root / "src", ".")  # from a subdirectory: the root is where pyproject.toml is
    directory = root / ".gradguard_cache"
    assert (directory / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    assert (
        (directory / "CACHEDIR.TAG")
        .read_text(encoding="utf-8")
        .startswith("Signature: 8a477f597d28d172789f06886806bc55")
    )
    assert not (root / "src" / ".gradguard_cache").exists()


def test_a_hit_does_not_run_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    options = CheckOptions(paths=(str(root / "src"),), cache_dir=str(tmp_path / "c"), jobs=1)
    first = io.StringIO(), io.StringIO()
    assert run_check(options, out=first[0], err=first[1]) == 2

    import gradguard.core.engine as engine

    def no_engine(*args: object, **kwargs: object) -> None:
        raise AssertionError("the engine ran on a cached file")

    monkeypatch.setattr(engine, "check_source", no_engine)
    second = io.StringIO(), io.StringIO()
    assert run_check(options, out=second[0], err=second[1]) == 2
    assert (first[0].getvalue(), first[1].getvalue()) == (
        second[0].getvalue(),
        second[1].getvalue(),
    )


def test_an_edited_file_is_checked_again(tmp_path: Path) -> None:
    root = project(tmp_path)
    before = check(root, "src/rnn.py")
    assert b"GG201" in before[1]
    (root / "src" / "rnn.py").write_text(GG101, encoding="utf-8")
    after = check(root, "src/rnn.py")
    assert b"GG201" not in after[1] and b"GG101" in after[1]
    assert after == check(root, "src/rnn.py", "--no-cache")


def test_changed_settings_change_the_results(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert b"GG101" in check(root, "src")[1]
    assert b"GG101" not in check(root, "src", "--ignore", "GG101")[1]
    (root / "pyproject.toml").write_text('[tool.gradguard]\nignore = ["GG101"]\n')
    assert b"GG101" not in check(root, "src")[1]
    (root / "pyproject.toml").write_text('[tool.gradguard.severity]\nGG101 = "warning"\n')
    assert b'"severity": "warning"' in check(root, "src", "--output-format", "json")[1]
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n')
    assert b'"severity": "error"' in check(root, "src", "--output-format", "json")[1]


def test_damaged_and_foreign_entries_are_misses(tmp_path: Path) -> None:
    root = project(tmp_path)
    expected = check(root, "src")
    found = entries(root / ".gradguard_cache")
    garbage = [
        b"\x00\xff not json",
        b"[]",
        b'{"key": "x", "content": "y", "outcome": []}',
        json.dumps({"key": 1}).encode(),
        b"[" * 100_000,
    ]
    assert len(found) == 3
    for entry, data in zip(found, garbage, strict=False):
        entry.write_bytes(data)
    assert check(root, "src") == expected
    # The misses were checked and stored again.
    assert all(json.loads(e.read_bytes())["key"] for e in entries(root / ".gradguard_cache"))


def test_a_well_formed_entry_with_a_wrong_outcome_is_a_miss(tmp_path: Path) -> None:
    root = project(tmp_path)
    expected = check(root, "src/rnn.py")
    [entry] = entries(root / ".gradguard_cache")
    stored = json.loads(entry.read_bytes())
    stored["outcome"][1][0][2] = "loud"  # not a severity
    entry.write_text(json.dumps(stored))
    assert check(root, "src/rnn.py") == expected
    stored["outcome"][1][0][4] = [-1, 0, 0, 0]  # not a position
    entry.write_text(json.dumps(stored))
    assert check(root, "src/rnn.py") == expected


def test_a_location_that_cannot_be_written_disables_the_cache(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "a_file").write_text("not a directory")
    expected = check(root, "src", "--no-cache")
    assert check(root, "src", "--cache-dir", "a_file/cache") == expected
    assert check(root, "src", env={"GRADGUARD_CACHE_DIR": str(root / "a_file")}) == expected


def test_no_cache_and_the_environment(tmp_path: Path) -> None:
    root = project(tmp_path)
    check(root, "src", "--no-cache")
    check(root, "src", env={"GRADGUARD_NO_CACHE": "1"})
    assert not (root / ".gradguard_cache").exists()
    check(root, "src", env={"GRADGUARD_NO_CACHE": "0"})
    assert (root / ".gradguard_cache").is_dir()
    check(root, "src", env={"GRADGUARD_CACHE_DIR": "moved"})
    assert (root / "moved" / "CACHEDIR.TAG").is_file()
    # The flag wins over the environment, as in ruff.
    check(root, "src", "--cache-dir", "flag", env={"GRADGUARD_CACHE_DIR": "moved-again"})
    assert (root / "flag").is_dir() and not (root / "moved-again").exists()


def test_fix_never_reads_the_cache(tmp_path: Path) -> None:
    root = project(tmp_path)
    check(root, "src")
    for entry in entries(root / ".gradguard_cache"):  # a cache that says "nothing to fix"
        stored = json.loads(entry.read_bytes())
        stored["outcome"][1] = []
        entry.write_text(json.dumps(stored))
    assert check(root, "src/rnn.py")[1].startswith(b"All checks passed!")  # poisoned: a hit
    code, _, _ = check(root, "src/rnn.py", "--fix")
    assert code == 0
    assert (root / "src" / "rnn.py").read_text(encoding="utf-8") != SAFE_GG201


def test_outcomes_survive_the_trip_through_json() -> None:
    texts = [i.code for r in all_rules() for i in r.invalid]
    for text in texts:
        findings = check_source(text).findings
        outcome = FileOutcome((Message(ERROR, "why", 2, 3),), findings, "new", 1, 2, "diff")
        assert from_plain(json.loads(json.dumps(to_plain(outcome)))) == outcome
    assert sum(len(check_source(t).findings) for t in texts) > len(texts) // 2


def test_location_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADGUARD_CACHE_DIR")
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "deep" / "er").mkdir(parents=True)
    assert cache.location(cwd=tmp_path / "deep" / "er") == tmp_path / ".gradguard_cache"
    monkeypatch.setenv("GRADGUARD_CACHE_DIR", "env")
    assert cache.location(cwd=tmp_path) == tmp_path / "env"
    assert cache.location("flag", cwd=tmp_path) == tmp_path / "flag"
