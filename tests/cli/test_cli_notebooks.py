"""`gradguard check` on Jupyter notebooks: discovery, positions in cells, every output format,
`--fix` that changes nothing but the fixed cell's source, bad notebooks, cache and `--jobs`.

The notebooks are written the way Jupyter writes them (`json.dumps(..., indent=1,
ensure_ascii=False)` plus a final newline), with outputs and metadata, so "byte-identical
but for the fixed cell" is checked against what Jupyter itself would write for the fixed
notebook.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Completed, Runner, run_gradguard
from notebook_cells import LOOP, SETUP

from gradguard.core.findings import Fix, Position, Range, Safety, TextEdit
from gradguard.core.notebook import Cell, concatenate
from gradguard.core.settings import Settings
from gradguard.file_check import FileTask, Mode, ReadFile, check_file, read
from gradguard.ipynb import parse_notebook
from gradguard.notebook_check import _confined

FIXED_LOOP = LOOP.replace("h = h_next\n", "h = h_next.detach()\n")
# GG101 across cells: computed under no_grad in one cell, backpropagated in another.
NO_GRAD_CELLS = [
    "import torch\nmodel = torch.nn.Linear(2, 1)\nx = torch.randn(4, 2)\n",
    "with torch.no_grad():\n    loss = model(x).sum()\n",
    "loss.backward()\n",
]


def code(source: str | list[str], *, outputs: list[Any] | None = None) -> dict[str, Any]:
    lines = source.splitlines(keepends=True) if isinstance(source, str) else source
    return {
        "cell_type": "code",
        "execution_count": 1,
        "id": "c0ffee",
        "metadata": {"scrolled": True, "tags": ["train"]},
        "outputs": outputs
        if outputs is not None
        else [{"name": "stdout", "output_type": "stream", "text": ["step 0\n", "naïve ✓\n"]}],
        "source": lines,
    }


def markdown(text: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": "n0tes", "metadata": {}, "source": [text]}


def notebook(*cells: dict[str, Any], language: str = "python") -> dict[str, Any]:
    return {
        "cells": list(cells),
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": language, "name": "python3"},
            "language_info": {"name": language, "version": "3.11.7"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def jupyter_json(document: dict[str, Any], *, indent: int | None = 1, ascii: bool = False) -> str:
    """The text Jupyter (nbformat) writes for `document`."""
    return json.dumps(document, indent=indent, ensure_ascii=ascii) + "\n"


def rnn_notebook() -> dict[str, Any]:
    return notebook(code(SETUP), markdown("# Training\nThe hidden state..."), code(LOOP))


def write_notebook(path: Path, document: dict[str, Any], **kwargs: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(jupyter_json(document, **kwargs).encode("utf-8"))
    return path


def loop_line(text: str) -> int:
    return text.splitlines().index("    h = h_next") + 1


# -- positions and messages -------------------------------------------------------------------


def test_text_output_names_the_cell_and_counts_lines_in_it(
    tmp_path: Path, gradguard: Runner
) -> None:
    write_notebook(tmp_path / "train.ipynb", rnn_notebook())
    done = gradguard("check", "--no-cache", "train.ipynb")
    assert done.code == 1, done.stderr
    header = done.stdout.splitlines()[0]
    assert header.startswith(f"train.ipynb:cell 3:{loop_line(LOOP)}:5: GG201 ")
    # The loop and the backward call are cited in the cell, never in the joined module.
    assert "loop at line 2 " in header
    assert "`loss.backward()` (line 7)" in header
    assert "= note: train.ipynb:cell 3:2:1: the loop that carries the state" in done.stdout
    # The frame shows the cell alone, numbered like the cell.
    assert f"\n{loop_line(LOOP)} |     h = h_next\n" in done.stdout
    assert "Found 1 error." in done.stdout


def test_a_line_in_another_cell_is_cited_with_its_cell(tmp_path: Path, gradguard: Runner) -> None:
    cells = [code(NO_GRAD_CELLS[0]), markdown("notes"), code(NO_GRAD_CELLS[1])]
    write_notebook(tmp_path / "nb.ipynb", notebook(*cells, code(NO_GRAD_CELLS[2])))
    done = gradguard("check", "--no-cache", "--select", "GG101", "nb.ipynb")
    assert done.code == 1, done.stderr
    header = done.stdout.splitlines()[0]
    assert header.startswith("nb.ipynb:cell 3:1:6: GG101 ")
    assert "(line 1 of cell 4)" in header
    assert "nb.ipynb:cell 4:1:1: `loss.backward()` raises" in done.stdout


def test_cite_cells_leaves_code_spans_and_unknown_lines_alone() -> None:
    joined = concatenate([Cell("1", "a\nb\n"), Cell("2", "c\nd\n")])
    assert joined.cite_cells("loop at line 4, see `line 3`", 0) == (
        "loop at line 2 of cell 2, see `line 3`"
    )
    assert joined.cite_cells("(line 2) and line 99", 1) == "(line 2) and line 99"
    assert joined.cite_cells("line 3", 3, label="") == "line 1"


def test_json_carries_the_cell_and_cell_relative_rows(tmp_path: Path, gradguard: Runner) -> None:
    write_notebook(tmp_path / "train.ipynb", rnn_notebook())
    (tmp_path / "plain.py").write_text(SETUP.replace("%", "#") + LOOP[18:], encoding="utf-8")
    done = gradguard("check", "--no-cache", "--output-format", "json", ".")
    items = {item["filename"]: item for item in json.loads(done.stdout)}
    cell = items["train.ipynb"]
    assert cell["cell"] == 3
    assert cell["location"] == {"row": loop_line(LOOP), "column": 5}
    assert cell["noqa_row"] == loop_line(LOOP)
    assert [r["cell"] for r in cell["related"]] == [3, 3]
    assert cell["fix"]["edits"][0]["cell"] == 3
    assert cell["fix"]["edits"][0]["location"]["row"] == loop_line(LOOP)
    python = items["plain.py"]
    assert python["cell"] is None  # the field is always there; the rest of the shape is kept
    assert set(python) == set(cell)


def test_sarif_points_at_the_json_lines_and_names_the_cell(
    tmp_path: Path, gradguard: Runner
) -> None:
    path = write_notebook(tmp_path / "train.ipynb", rnn_notebook())
    done = gradguard("check", "--no-cache", "--output-format", "sarif", "train.ipynb")
    [result] = json.loads(done.stdout)["runs"][0]["results"]
    [location] = result["locations"]
    region = location["physicalLocation"]["region"]
    file_line = path.read_text(encoding="utf-8").splitlines()[region["startLine"] - 1]
    assert file_line.strip() == '"    h = h_next\\n"'
    assert region["endLine"] == region["startLine"]
    assert location["properties"] == {
        "cell": 3,
        "cellRegion": {
            "startLine": loop_line(LOOP),
            "startColumn": 5,
            "endLine": loop_line(LOOP),
            "endColumn": 15,
        },
    }
    assert location["logicalLocations"] == [{"name": "cell 3", "kind": "cell"}]


def test_github_annotations_use_file_lines_and_name_the_cell(
    tmp_path: Path, gradguard: Runner
) -> None:
    path = write_notebook(tmp_path / "train.ipynb", rnn_notebook())
    done = gradguard("check", "--no-cache", "--output-format", "github", "train.ipynb")
    lines = path.read_text(encoding="utf-8").splitlines()
    number = next(i for i, text in enumerate(lines, 1) if '"    h = h_next\\n"' in text)
    assert done.stdout.startswith(
        f"::error title=GradGuard (GG201),file=train.ipynb,line={number},endLine={number}::"
        f"GG201 cell 3:{loop_line(LOOP)}:5: `h` is not detached"
    )


def test_a_syntax_error_is_reported_in_its_cell(tmp_path: Path, gradguard: Runner) -> None:
    write_notebook(tmp_path / "nb.ipynb", notebook(code(SETUP), code("import torch\ndef f(:\n")))
    done = gradguard("check", "--no-cache", "nb.ipynb")
    assert done.code == 2
    assert "nb.ipynb:cell 2:2:7: error: SyntaxError" in done.stderr
    assert "Traceback" not in done.stderr


# -- discovery ---------------------------------------------------------------------------------


def test_directories_take_notebooks_with_the_same_skip_rules(
    tmp_path: Path, gradguard: Runner, git: Any
) -> None:
    git("init", "-q", cwd=tmp_path)
    (tmp_path / ".gitignore").write_text("ignored/\n", encoding="utf-8")
    for where in (
        "a/train.ipynb",
        "ignored/x.ipynb",
        "a/.ipynb_checkpoints/train-checkpoint.ipynb",
        ".venv/lib/nb.ipynb",
        "build/nb.ipynb",
    ):
        write_notebook(tmp_path / where, rnn_notebook())
    done = gradguard("check", "--no-cache", "--output-format", "json", ".")
    assert {item["filename"] for item in json.loads(done.stdout)} == {"a/train.ipynb"}


def test_a_notebook_in_another_language_is_skipped_with_a_warning(
    tmp_path: Path, gradguard: Runner
) -> None:
    write_notebook(tmp_path / "r.ipynb", notebook(code("x <- 1\n"), language="R"))
    done = gradguard("check", "--no-cache", "r.ipynb")
    assert done.code == 0
    assert "warning: r.ipynb: skipped: not a Python notebook (its language is 'R')" in done.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"cells": [', "invalid notebook JSON: Expecting value"),
        ("[1, 2]", 'not a Jupyter notebook in nbformat 4: no "cells" list'),
        (
            '{"cells": [{"cell_type": "code", "source": 3}]}',
            "invalid notebook: the source of cell 1 is not text",
        ),
        ('{"cells": [{"source": "x"}]}', "invalid notebook: cell 1 has no cell_type"),
        ("[" * 100_000, "invalid notebook"),
    ],
)
@pytest.mark.parametrize("fix", [False, True])
def test_an_invalid_notebook_is_a_clear_error_and_never_rewritten(
    tmp_path: Path, gradguard: Runner, content: str, message: str, fix: bool
) -> None:
    path = tmp_path / "bad.ipynb"
    path.write_text(content, encoding="utf-8")
    done = gradguard("check", *(["--fix"] if fix else []), "bad.ipynb")
    assert done.code == 2
    assert f"bad.ipynb: error: {message}" in done.stderr
    assert "Traceback" not in done.stderr
    assert path.read_text(encoding="utf-8") == content


# -- fixing ------------------------------------------------------------------------------------


def fixed_document(document: dict[str, Any], index: int, source: Any) -> dict[str, Any]:
    fixed = copy.deepcopy(document)
    fixed["cells"][index]["source"] = source
    return fixed


@pytest.mark.parametrize(
    ("indent", "ascii"), [(1, False), (1, True), (2, False), (4, False), (None, False)]
)
def test_fix_changes_only_the_fixed_cells_source(
    tmp_path: Path, gradguard: Runner, indent: int | None, ascii: bool
) -> None:
    document = rnn_notebook()
    path = write_notebook(tmp_path / "train.ipynb", document, indent=indent, ascii=ascii)
    done = gradguard("check", "--fix", "train.ipynb")
    assert done.code == 0, done.stdout + done.stderr
    assert "Found 1 error (1 fixed, 0 remaining)." in done.stdout
    expected = fixed_document(document, 2, FIXED_LOOP.splitlines(keepends=True))
    assert path.read_bytes() == jupyter_json(expected, indent=indent, ascii=ascii).encode()


def test_fix_keeps_a_source_written_as_one_string(tmp_path: Path, gradguard: Runner) -> None:
    document = notebook(code(SETUP), code(LOOP))
    document["cells"][1]["source"] = LOOP
    path = write_notebook(tmp_path / "train.ipynb", document)
    assert gradguard("check", "--fix", "train.ipynb").code == 0
    assert path.read_text(encoding="utf-8") == jupyter_json(fixed_document(document, 1, FIXED_LOOP))


def test_fix_keeps_the_magics_and_shell_lines(tmp_path: Path, gradguard: Runner) -> None:
    loop = "%%time\n" + LOOP.replace("    opt.step()\n", "    opt.step()\n    !echo step\n")
    document = notebook(code(SETUP), code(loop))
    path = write_notebook(tmp_path / "train.ipynb", document)
    assert gradguard("check", "--fix", "train.ipynb").code == 0
    fixed = json.loads(path.read_text(encoding="utf-8"))
    assert "".join(fixed["cells"][1]["source"]) == loop.replace(
        "h = h_next\n", "h = h_next.detach()\n"
    )
    assert fixed["cells"][0]["source"] == document["cells"][0]["source"]


def test_diff_shows_the_cell_and_writes_nothing(tmp_path: Path, gradguard: Runner) -> None:
    path = write_notebook(tmp_path / "train.ipynb", rnn_notebook())
    before = path.read_bytes()
    done = gradguard("check", "--diff", "train.ipynb")
    assert done.code == 1
    assert done.stdout.startswith("--- train.ipynb:cell 3\n+++ train.ipynb:cell 3\n")
    assert "-    h = h_next\n+    h = h_next.detach()\n" in done.stdout
    assert path.read_bytes() == before


def test_fix_never_rewrites_a_notebook_changed_meanwhile(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "train.ipynb", rnn_notebook())
    got = read(path, "train.ipynb")
    assert isinstance(got, ReadFile) and got.notebook is not None
    mode = Mode(fix=True)
    task = FileTask(path, "nb", got.decoded, Settings(), mode, notebook=got.notebook)
    path.write_text(path.read_text(encoding="utf-8").replace("Training", "Trained"))
    edited = path.read_bytes()
    outcome = check_file(task)
    assert any("changed on disk" in m.text for m in outcome.messages)
    assert outcome.fixed == 0
    assert path.read_bytes() == edited


# -- cache and jobs ----------------------------------------------------------------------------


def _check(cwd: Path, *args: str) -> Completed:
    return run_gradguard(["check", *args], cwd=cwd, env={"GRADGUARD_CACHE_DIR": ""})


def test_cache_and_jobs_report_notebooks_exactly_as_a_plain_run(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n', encoding="utf-8")
    for index in range(10):
        document = rnn_notebook() if index % 2 else notebook(*map(code, NO_GRAD_CELLS))
        write_notebook(tmp_path / f"nb{index}.ipynb", document)
    for fmt in ("text", "json", "sarif", "github"):
        plain = _check(tmp_path, "--no-cache", "-j", "1", "--output-format", fmt)
        cold = _check(tmp_path, "-j", "2", "--output-format", fmt)
        warm = _check(tmp_path, "-j", "2", "--output-format", fmt)
        assert plain.code == cold.code == warm.code == 1
        assert plain.stdout == cold.stdout == warm.stdout
    entries = [p for p in (tmp_path / ".gradguard_cache").rglob("*") if p.is_file()]
    assert len(entries) >= 10


def test_a_notebook_on_standard_input(tmp_path: Path, gradguard: Runner) -> None:
    text = jupyter_json(rnn_notebook())
    name = ("--stdin-filename", "train.ipynb")
    done = gradguard("check", *name, "-", stdin=text.encode())
    assert done.code == 1
    assert done.stdout.startswith(f"train.ipynb:cell 3:{loop_line(LOOP)}:5: GG201 ")
    fixed = gradguard("check", "--fix", *name, "-", stdin=text.encode())
    expected = fixed_document(rnn_notebook(), 2, FIXED_LOOP.splitlines(keepends=True))
    assert fixed.stdout == jupyter_json(expected)
    broken = gradguard("check", "--fix", *name, "-", stdin=b"{")
    assert broken.code == 2
    assert broken.stdout_bytes == b"{"
    assert "train.ipynb: error: invalid notebook JSON" in broken.stderr


def test_a_fix_touching_ipython_lines_or_crossing_cells_is_not_applied() -> None:
    joined = concatenate([Cell("1", "a = 1\n%time x\n"), Cell("2", "b = 2\n")])

    def fix(*spans: tuple[tuple[int, int], tuple[int, int]]) -> Fix:
        edits = tuple(TextEdit(Range(Position(*s), Position(*e)), "") for s, e in spans)
        return Fix("t", Safety.SAFE, edits)

    assert _confined(joined, fix(((0, 0), (0, 1))))
    assert _confined(joined, fix(((0, 0), (1, 0))))  # a whole line, up to the magic's start
    assert _confined(joined, fix(((0, 0), (0, 1)), ((2, 0), (2, 1))))  # one edit per cell
    assert not _confined(joined, fix(((1, 0), (1, 1))))  # the blanked `%time` line
    assert not _confined(joined, fix(((0, 0), (2, 0))))  # from one cell into the next


@pytest.mark.parametrize("indent", [1, 2, None])
def test_an_empty_source_list_takes_the_layout_of_the_others(indent: int | None) -> None:
    document = notebook(code(SETUP), code([]))
    parsed = parse_notebook(jupyter_json(document, indent=indent))
    expected = fixed_document(document, 1, ["x = 1\n", "y = 2"])
    assert parsed.rewrite({2: "x = 1\ny = 2"}) == jupyter_json(expected, indent=indent)


def test_a_block_made_of_shell_lines_still_parses(tmp_path: Path, gradguard: Runner) -> None:
    install = (
        "import sys\nif 'google.colab' in sys.modules:\n    !pip install -q torch\n    %pip list\n"
    )
    write_notebook(tmp_path / "nb.ipynb", notebook(code(install), code(SETUP), code(LOOP)))
    done = gradguard("check", "--no-cache", "nb.ipynb")
    assert done.code == 1, done.stderr
    assert done.stdout.startswith(f"nb.ipynb:cell 3:{loop_line(LOOP)}:5: GG201 ")


def test_a_syntax_error_cites_its_lines_in_the_cell(tmp_path: Path, gradguard: Runner) -> None:
    write_notebook(tmp_path / "nb.ipynb", notebook(code(SETUP), code("if True:\nx = 1\n")))
    done = gradguard("check", "--no-cache", "nb.ipynb")
    assert done.code == 2
    assert "nb.ipynb:cell 2:2:1: error: SyntaxError: expected an indented block after 'if' " in (
        done.stderr
    )
    assert "statement on line 1\n" in done.stderr


def test_an_nbformat_3_notebook_is_skipped_with_a_warning(
    tmp_path: Path, gradguard: Runner
) -> None:
    old = {"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "code", "input": ["x = 1"]}]}]}
    (tmp_path / "old.ipynb").write_text(json.dumps(old), encoding="utf-8")
    done = gradguard("check", "--no-cache", "old.ipynb")
    assert done.code == 0
    assert "warning: old.ipynb: skipped: an nbformat 3 notebook; GradGuard reads nbformat 4" in (
        done.stderr
    )


@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": "), (" ,", " : ")])
def test_rewrite_survives_tricky_json(separators: tuple[str, str]) -> None:
    tricky = ['s = "a\\", ]"  # [x], {y}: \\u00e9 ✓\n', "t = '\\t'\n", "u = 1"]
    cell = {"source": tricky, "outputs": [{"data": {"text/plain": ['"source": [']}}]}
    document = {
        "metadata": {"cells": "not these"},
        "cells": [{**cell, "cell_type": "code", "metadata": {}}, markdown("x")],
        "nbformat": 4,
        "nbformat_minor": 2,
    }
    for indent in (None, 2):
        raw = json.dumps(document, indent=indent, separators=separators, ensure_ascii=False)
        parsed = parse_notebook(raw)
        [only] = parsed.cells
        assert only.text == "".join(tricky)
        new = ["v = 2\n", *tricky]
        expected = fixed_document(document, 0, new)
        rewritten = parsed.rewrite({1: "".join(new)})
        assert rewritten == json.dumps(
            expected, indent=indent, separators=separators, ensure_ascii=False
        )
