"""A function another file of the project calls with recording off (`grad_off_calls`): its
entry grad mode is unknown, so findings that need recording on stay silent.

The fixture `projects/grad_off_elsewhere` holds one detector (`detector.py`, whose
`generate` and `score` end in `.numpy()` of the network's outputs) in three projects:
`called_off` (main.py's `@t.no_grad()` test calls `generate`; evaluation.py, which main.py
imports but which never imports detector.py, calls `model.score(x)` under
`torch.no_grad()`), `called_on` (the look-alike: called with recording on, reported) and
`unrelated` (the names are called under no_grad only by tools/export.py, a separate
program that no import joins to detector.py: reported). Real torch runs each entry script.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from projects import PROJECTS, Project, run_entries
from test_projects_cli import copy

import gradguard as package
from gradguard.core.engine import check_source
from gradguard.project import session
from gradguard.project.grad_off_calls import may_switch_off, names_called_off
from gradguard.project.grad_off_index import GradOffIndex
from gradguard.project.live import LiveIndex

FIXTURE = PROJECTS / "grad_off_elsewhere"
# This worktree's code in the CLI's process, whatever the PYTHONPATH the suite runs with
# (a relative one does not reach a project copied elsewhere).
SERVER = str(Path(package.__file__).resolve().parents[1])


def gradguard(cwd: Path, *args: str) -> tuple[int, list[dict[str, object]], str]:
    """Run `gradguard check --output-format json ARGS` in `cwd`: exit code, findings, stderr."""
    proc = subprocess.run(
        [sys.executable, "-m", "gradguard", "check", "--output-format", "json", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": SERVER},
    )
    return proc.returncode, json.loads(proc.stdout or "[]"), proc.stderr


ERROR = "Can't call numpy() on Tensor that requires grad"


def lines(findings: list[dict[str, object]]) -> set[tuple[str, object, object]]:
    return {
        (str(f["filename"]), f["code"], f["location"]["row"])  # type: ignore[index]
        for f in findings
    }


REPORTED = {("detector.py", "GG502", 25), ("detector.py", "GG502", 29)}


def test_called_under_no_grad_by_other_files_is_silent(tmp_path: Path) -> None:
    project = copy(FIXTURE / "called_off", tmp_path / "p")
    assert gradguard(project, "--no-cache", ".")[:2] == (0, [])


def test_the_file_alone_still_reports(tmp_path: Path) -> None:
    """Single-file checks keep today's behaviour: no project, recording assumed on."""
    path = FIXTURE / "called_off" / "detector.py"
    result = check_source(path.read_text(encoding="utf-8"), path=str(path))
    assert [f.code for f in result.findings] == ["GG502"] * 3


def test_called_with_recording_on_is_reported(tmp_path: Path) -> None:
    project = copy(FIXTURE / "called_on", tmp_path / "p")
    code, findings, stderr = gradguard(project, "--no-cache", ".")
    assert lines(findings) == REPORTED, stderr
    assert code == 1


def test_a_separate_program_calling_the_names_under_no_grad_does_not_count(
    tmp_path: Path,
) -> None:
    project = copy(FIXTURE / "unrelated", tmp_path / "p")
    _, findings, stderr = gradguard(project, "--no-cache", ".")
    assert lines(findings) == REPORTED, stderr


def test_the_argument_helper_counts_because_main_imports_both(tmp_path: Path) -> None:
    """Control: evaluation.py's no_grad `model.score(x)` silences `score` only while an
    import chain (main.py imports both) makes it part of detector.py's program."""
    project = copy(FIXTURE / "called_off", tmp_path / "p")
    main = project / "main.py"
    text = main.read_text(encoding="utf-8")
    text = text.replace("from evaluation import score_batches\n", "")
    main.write_text(text.replace('    print("mean-score"', '    # print("mean-score"'))
    _, findings, stderr = gradguard(project, "--no-cache", ".")
    assert lines(findings) == {("detector.py", "GG502", 29)}, stderr


def test_a_warm_cache_follows_the_no_grad_of_another_file(tmp_path: Path) -> None:
    """detector.py's cached result rests on main.py: dropping its `@t.no_grad()` (main.py
    alone changes) reports `generate` again; putting it back silences it."""
    project = copy(FIXTURE / "called_off", tmp_path / "p")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert gradguard(project, *cache, ".")[:2] == (0, [])
    assert gradguard(project, *cache, ".")[:2] == (0, [])  # warm
    main = project / "main.py"
    text = main.read_text(encoding="utf-8")
    main.write_text(text.replace("@t.no_grad()\n", ""), encoding="utf-8")
    _, findings, _ = gradguard(project, *cache, ".")
    assert lines(findings) == {("detector.py", "GG502", 25)}
    main.write_text(text, encoding="utf-8")
    assert gradguard(project, *cache, ".")[:2] == (0, [])


def test_the_language_server_index_reports_the_stale_file(tmp_path: Path) -> None:
    """An edit of main.py's no_grad makes detector.py stale in the live index."""
    project = copy(FIXTURE / "called_off", tmp_path / "p")
    index = LiveIndex()
    detector, main = (project / "detector.py").resolve(), (project / "main.py").resolve()

    def codes() -> list[str]:
        with index.checking(detector):
            result = check_source(detector.read_text(encoding="utf-8"), path=str(detector))
        return [f.code for f in result.findings]

    assert codes() == []
    text = main.read_text(encoding="utf-8")
    assert detector in index.revise(main, text.replace("@t.no_grad()\n", ""))
    assert codes() == ["GG502", "GG502"]
    assert detector in index.revise(main, None)
    assert codes() == []


def test_the_project_session_gives_the_fact_to_the_checked_file_only(tmp_path: Path) -> None:
    project = copy(FIXTURE / "called_off", tmp_path / "p")
    session.reset()
    try:
        with session.checking(project / "detector.py"):
            imports = session.project_imports()
            assert imports is not None
            names = imports.called_without_grad()
        assert {"generate", "score"} <= names and "test" not in names
        assert set(session.dependencies(project / "detector.py")) == {
            str((project / name).resolve()) for name in ("main.py", "evaluation.py")
        }
    finally:
        session.reset()


# -- the syntactic fact ----------------------------------------------------------------------


def called(source: str) -> frozenset[str]:
    import ast

    return names_called_off(ast.parse(textwrap.dedent(source)))


def test_regions_decorators_with_blocks_and_aliases() -> None:
    assert called(
        """
        import torch as t
        from model import generate as gen

        @t.no_grad()
        def test(model):
            model.predict(x)
            gen(x)

        def plain(model):
            model.fit(x)
            with t.inference_mode():
                model.embed(x)
        """
    ) == {"predict", "gen", "generate", "embed"}


def test_functions_called_from_a_region_are_regions() -> None:
    assert called(
        """
        import torch

        def run_batch(model, x):
            return model.generate(x)

        def evaluate(model, loader):
            with torch.no_grad():
                for x in loader:
                    run_batch(model, x)
        """
    ) == {"run_batch", "generate"}


def test_switches_that_keep_recording_on() -> None:
    assert (
        called(
            """
        import torch

        with torch.set_grad_enabled(True):
            model.fit(x)
        with torch.inference_mode(False):
            model.tune(x)
        with torch.enable_grad():
            model.train_step(x)
        """
        )
        == frozenset()
    )
    assert called(
        """
        import torch

        with torch.set_grad_enabled(phase == "train"):
            model.step(x)
        """
    ) == {"step"}


@pytest.mark.parametrize(
    ("expr", "off"),
    [
        ("torch.no_grad()", True),
        ("torch.no_grad", True),
        ("t.inference_mode()", True),
        ("inference_mode(mode=False)", False),
        ("torch.set_grad_enabled(False)", True),
        ("torch.set_grad_enabled(mode=True)", False),
        ("torch.set_grad_enabled(training)", True),
        ("torch.enable_grad()", False),
        ("open(path)", False),
    ],
)
def test_may_switch_off(expr: str, off: bool) -> None:
    import ast

    assert may_switch_off(ast.parse(expr, mode="eval").body) is off


def test_parts_of_the_import_graph(tmp_path: Path) -> None:
    """Edges count both ways; `import a.b` counts; a file no import joins is apart."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text("def generate(x):\n    return x\n")
    (tmp_path / "main.py").write_text("import pkg.model\nimport helpers\n")
    (tmp_path / "helpers.py").write_text(
        "import torch\n\ndef run(m):\n    with torch.no_grad():\n        m.generate(1)\n"
    )
    (tmp_path / "other.py").write_text(
        "import torch\n\nwith torch.no_grad():\n    thing.forecast(1)\n"
    )
    index = GradOffIndex({})
    model = (tmp_path / "pkg" / "model.py").resolve()
    names, depends = index.called_off_elsewhere(model)
    assert names == {"generate"}
    assert set(depends) == {(tmp_path / "main.py").resolve(), (tmp_path / "helpers.py").resolve()}
    # The editor's text of a file counts, once the index forgets what it read.
    edited = "import pkg.model\nwith torch.no_grad():\n    f()\n"
    texts = {(tmp_path / "other.py").resolve(): edited}
    index = GradOffIndex(texts)
    assert index.called_off_elsewhere(model)[0] == {"generate", "f"}


# -- real torch ------------------------------------------------------------------------------


def test_the_fixtures_run_as_documented(tmp_path: Path) -> None:
    """called_off runs; called_on and unrelated raise the error; export.py runs."""
    pytest.importorskip("torch")
    main = Project("grad_off_elsewhere", "GG502", "detector.py", "main.py", ERROR, "main.py")
    export = Project(
        "grad_off_elsewhere", "GG502", "detector.py", "main.py", None, "tools/export.py"
    )
    runs = run_entries([(main, "called_off"), (main, "called_on"), (export, "unrelated")], tmp_path)
    assert runs[("grad_off_elsewhere", "called_off")].returncode == 0
    on = runs[("grad_off_elsewhere", "called_on")]
    assert on.returncode != 0 and ERROR in on.stderr
    assert "generate raised: " + ERROR in on.stdout
    assert runs[("grad_off_elsewhere", "unrelated")].returncode == 0
    shutil.rmtree(tmp_path, ignore_errors=True)


# -- a caller that certainly runs it with recording on -------------------------------------

ENGINE = """\
from torch import nn

LAYER = nn.Linear(4, 2)


def convert(x, to_numpy=False):
    out = LAYER(x)
    if to_numpy:
        return out.numpy()
    return out
"""
PREPARE = """\
import torch

from .engine import convert


def prepare():
    with torch.no_grad():
        return convert(torch.randn(2, 4))
"""
UNWRAP = """\
import torch

from .engine import convert


def unwrap():
    return convert(torch.randn(2, 4), to_numpy=True)
"""


def check_in(project: Path, relative: str) -> list[str]:
    session.reset()
    try:
        path = project / relative
        with session.checking(path):
            result = check_source(path.read_text(encoding="utf-8"), path=str(path))
        return [f.code for f in result.findings]
    finally:
        session.reset()


def write(project: Path, files: dict[str, str]) -> Path:
    (project / "tools").mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    (project / "tools" / "__init__.py").write_text("")
    for name, text in files.items():
        (project / "tools" / name).write_text(text, encoding="utf-8")
    return project


def test_an_imported_call_with_recording_on_keeps_the_finding(tmp_path: Path) -> None:
    """accelerate's `convert_model` shape: converted under no_grad one way (prepare.py), with
    recording on the other way by a plain call of the imported name (unwrap.py, which raises
    when run): the finding stays."""
    files = {"engine.py": ENGINE, "prepare.py": PREPARE, "unwrap.py": UNWRAP}
    project = write(tmp_path / "p", files)
    assert check_in(project, "tools/engine.py") == ["GG502"]
    # Without the caller with recording on, only the no_grad caller is left: silent.
    (project / "tools" / "unwrap.py").unlink()
    assert check_in(project, "tools/engine.py") == []


def test_an_imported_call_in_a_function_called_under_no_grad_does_not_count(
    tmp_path: Path,
) -> None:
    """unwrap() itself runs under no_grad (main.py): its call is not certainly with
    recording on, so the no_grad caller keeps `convert` silent."""
    main = "import torch\nfrom tools.unwrap import unwrap\nwith torch.no_grad():\n    unwrap()\n"
    files = {"engine.py": ENGINE, "prepare.py": PREPARE, "unwrap.py": UNWRAP}
    project = write(tmp_path / "p", files)
    (project / "main.py").write_text(main, encoding="utf-8")
    assert check_in(project, "tools/engine.py") == []


def test_a_method_call_with_recording_on_does_not_count(tmp_path: Path) -> None:
    """`x.convert(...)` may be another class's method: only plain calls of the imported name
    count as certainly running it."""
    unwrap = UNWRAP.replace("from .engine import convert", "from . import engine")
    unwrap = unwrap.replace("return convert(", "return engine.convert(")
    files = {"engine.py": ENGINE, "prepare.py": PREPARE, "unwrap.py": unwrap}
    project = write(tmp_path / "p", files)
    assert check_in(project, "tools/engine.py") == []
