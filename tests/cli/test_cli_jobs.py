"""`gradguard check --jobs N`: the same report, byte for byte, whatever N is.

The tree mixes the rules' INVALID examples (findings, safe and unsafe fixes), clean files,
files without torch, a file that does not parse, one that is not UTF-8 and one that cannot
be read, so every kind of per-file outcome crosses the process boundary.
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest
from conftest import run_gradguard

from gradguard import parallel
from gradguard.cli import CheckOptions, run_check
from gradguard.core.rule import all_rules

FORMATS = ("text", "json", "sarif", "github")


def build_tree(root: Path) -> Path:
    """About 40 files with findings, fixes and failures of every kind: the first INVALID
    example of every rule (so the catalogue growing never pushes a rule out)."""
    examples = [(r.code, r.invalid[0].code) for r in all_rules() if r.invalid]
    for index, (code, text) in enumerate(examples):
        folder = root / f"pkg{index % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{code.lower()}_{index:02}.py").write_text(text, encoding="utf-8")
    (root / "clean.py").write_text("import torch\n\nx = torch.ones(2)\n", encoding="utf-8")
    (root / "no_torch.py").write_text("print('hello')\n", encoding="utf-8")
    (root / "broken.py").write_text("import torch\ndef f(:\n", encoding="utf-8")
    (root / "latin1.py").write_bytes(b"import torch\n# caf\xe9\n")
    safe = next(i.code for r in all_rules() for i in r.invalid if i.fixed and not i.unsafe_fix)
    (root / "crlf.py").write_bytes(safe.replace("\n", "\r\n").encode())
    unreadable = root / "unreadable.py"
    unreadable.write_text("import torch\n", encoding="utf-8")
    unreadable.chmod(0)
    return root


# The order of the edits of one GG201 fix (an `(h, c)` state) follows string hashing, so it
# differs between two processes with different hash seeds, whatever --jobs is (a rule
# matter); the comparison pins the seed. Workers are forked and share their parent's seed.
SAME_SEED = {"PYTHONHASHSEED": "0"}


def check(tree: Path, *args: str) -> tuple[int, bytes, str]:
    done = run_gradguard(["check", ".", "--no-cache", *args], cwd=tree, module=True, env=SAME_SEED)
    return done.code, done.stdout_bytes, done.stderr


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tree(tmp_path_factory.mktemp("jobs"))


@pytest.mark.parametrize("fmt", FORMATS)
def test_output_does_not_depend_on_jobs(tree: Path, fmt: str) -> None:
    one = check(tree, "--jobs", "1", "--output-format", fmt)
    four = check(tree, "--jobs", "4", "--output-format", fmt)
    assert one == four
    code, stdout, stderr = one
    assert code == 2  # findings, and files that could not be checked
    assert b"GG201" in stdout
    assert "broken.py:2:7: error: SyntaxError" in stderr
    assert "latin1.py:2:6: error: file is not valid UTF-8" in stderr
    if os.geteuid() != 0:  # root reads any file
        assert "unreadable.py: error: cannot read: Permission denied" in stderr


@pytest.mark.parametrize("extra", [(), ("--unsafe-fixes",), ("--diff",)])
def test_fix_does_not_depend_on_jobs(tree: Path, tmp_path: Path, extra: tuple[str, ...]) -> None:
    results = []
    for jobs in ("1", "4"):
        copy = tmp_path / f"jobs{jobs}"
        shutil.copytree(tree, copy)
        code, stdout, stderr = check(copy, "--fix", "--jobs", jobs, *extra)
        files = {
            p.relative_to(copy).as_posix(): p.read_bytes()
            for p in sorted(copy.rglob("*.py"))
            if os.access(p, os.R_OK) and p.name != "unreadable.py"
        }
        results.append((code, stdout, stderr, files))
    assert results[0] == results[1]
    code, stdout, stderr, files = results[0]
    if "--diff" in extra:
        assert stdout.startswith(b"---") and "Would fix" in stderr
        assert all(data == (tree / name).read_bytes() for name, data in files.items())
    else:
        assert b"fixed" in stdout
        assert files["crlf.py"] != (tree / "crlf.py").read_bytes()
        assert b"\r\n" in files["crlf.py"] and b"\n" not in files["crlf.py"].replace(b"\r\n", b"")


def test_a_small_run_starts_no_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pool(workers: int) -> None:
        raise AssertionError("a pool was started")

    monkeypatch.setattr(parallel, "_executor", no_pool)
    build_tree(tmp_path)
    few = sorted(str(p) for p in tmp_path.rglob("gg*.py"))[: parallel.MIN_FILES_PER_WORKER * 2 - 1]
    options = CheckOptions(paths=tuple(few), jobs=8, cache=False)
    assert run_check(options, out=io.StringIO(), err=io.StringIO()) == 1
    assert parallel.worker_count(8, 7) == 1
    assert parallel.worker_count(8, 8) == 2
    assert parallel.worker_count(3, 100) == 3


def test_errors_in_workers_read_as_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In process, so the patches reach the forked workers; each file notes who checked it.
    import gradguard.core.engine as engine

    real_check_source = engine.check_source
    pids = tmp_path / "pids"
    pids.mkdir()

    def flaky_check_source(text: str, **kwargs: object) -> engine.CheckResult:
        (pids / str(os.getpid())).touch()
        if "hidden" in text:
            raise RecursionError("too deep")
        return real_check_source(text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "check_source", flaky_check_source)
    tree = build_tree(tmp_path / "tree")
    outputs = []
    for jobs in (1, 4):
        out, err = io.StringIO(), io.StringIO()
        options = CheckOptions(paths=(str(tree),), jobs=jobs, cache=False)
        outputs.append((run_check(options, out=out, err=err), out.getvalue(), err.getvalue()))
    assert outputs[0] == outputs[1]
    assert "error: internal error: RecursionError: too deep (please report)" in outputs[0][2]
    assert len({p.name for p in pids.iterdir()} - {str(os.getpid())}) >= 2  # workers ran


def test_a_worker_that_dies_costs_only_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_check_file = parallel.check_file

    def crashing_check_file(task: parallel.FileTask) -> object:
        if task.path.name.startswith("gg201"):
            os._exit(70)  # as a crash in the interpreter would
        return real_check_file(task)

    monkeypatch.setattr(parallel, "check_file", crashing_check_file)
    tree = build_tree(tmp_path / "tree")
    out, err = io.StringIO(), io.StringIO()
    options = CheckOptions(paths=(str(tree),), jobs=4, cache=False)
    assert run_check(options, out=out, err=err) == 2
    lost = [line for line in err.getvalue().splitlines() if parallel.LOST in line]
    crashing = sorted(p.name for p in tree.rglob("gg201*.py"))
    assert crashing and len(lost) == len(crashing)
    assert all(any(name in line for line in lost) for name in crashing)
    assert "GG101" in out.getvalue()  # the other files were checked
