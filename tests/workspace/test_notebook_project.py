"""A notebook inside a project imports its files as a Python file does.

`projects/notebook_gru_state`: `train.ipynb` trains the GRU of `model.py` (`from model import
CharGRU`) chunk by chunk; the buggy copy carries the hidden state into the next chunk without
`.detach()` (GG201), which only shows with the fact that `model.py`'s forward returns the
GRU's state. Real PyTorch proves both copies (the code cells run in order, as Jupyter runs
them), and the real CLI reports the buggy one only, on the cell's line, and follows
`model.py` through the results cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import torch
from projects import HERE, PROJECTS
from test_projects_cli import gradguard

FOLDER = PROJECTS / "notebook_gru_state"
SECOND_TIME = "Trying to backward through the graph a second time"


def _copy(variant: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(FOLDER / variant, tmp_path / variant))


def _code(notebook: Path) -> str:
    """The notebook's code cells, joined in order (what running all cells runs)."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code") + "\n"


def test_torch_fails_the_buggy_notebook_and_trains_the_fixed_one(tmp_path: Path) -> None:
    assert torch.__version__.startswith("2.13.0")
    jobs = []
    for variant in ("buggy", "fixed"):
        folder = _copy(variant, tmp_path)
        script = folder / "all_cells.py"
        script.write_text(_code(folder / "train.ipynb"), encoding="utf-8")
        out = tmp_path / f"{variant}.out"
        jobs.append(
            {
                "script": str(script),
                "cwd": str(folder),
                "path": [str(folder)],
                "stdout": str(out),
                "stderr": str(tmp_path / f"{variant}.err"),
            }
        )
    listing = tmp_path / "jobs.json"
    listing.write_text(json.dumps(jobs), encoding="utf-8")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    runner = [sys.executable, str(HERE / "fork_runner.py"), str(listing)]
    subprocess.run(runner, env=env, timeout=120, check=True)
    status = {job["stdout"]: Path(f"{job['stdout']}.status").read_text() for job in jobs}
    buggy, fixed = jobs
    assert status[buggy["stdout"]] != "0"
    assert SECOND_TIME in Path(buggy["stderr"]).read_text(encoding="utf-8")
    assert status[fixed["stdout"]] == "0", Path(fixed["stderr"]).read_text(encoding="utf-8")
    norms = Path(fixed["stdout"]).read_text().split()
    assert norms[0] == "param-grad-norm" and float(norms[1]) > 0


def test_the_cli_reports_the_buggy_notebook_in_its_cell(tmp_path: Path) -> None:
    folder = _copy("buggy", tmp_path)
    code, findings, stderr = gradguard(folder, "--no-cache", "train.ipynb")
    assert code == 1, stderr
    assert [(f["filename"], f["code"], f["cell"]) for f in findings] == [
        ("train.ipynb", "GG201", 4)
    ]


def test_the_cli_is_silent_on_the_fixed_notebook_and_on_the_buggy_one_alone(
    tmp_path: Path,
) -> None:
    code, findings, stderr = gradguard(_copy("fixed", tmp_path), "--no-cache", ".")
    assert (code, findings) == (0, []), stderr
    # Without model.py beside it the GRU is unknown: the finding rests on the other file.
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(FOLDER / "buggy" / "train.ipynb", alone)
    code, findings, stderr = gradguard(alone, "--no-cache", "train.ipynb")
    assert (code, findings) == (0, []), stderr


def test_a_cached_notebook_result_follows_the_imported_file(tmp_path: Path) -> None:
    folder = _copy("buggy", tmp_path)
    cache = ["--cache-dir", str(tmp_path / "cache"), "train.ipynb"]
    assert [f["code"] for f in gradguard(folder, *cache)[1]] == ["GG201"]
    model = folder / "model.py"
    detached = "return self.head(out), hidden.detach()"
    model.write_text(model.read_text().replace("return self.head(out), hidden", detached))
    assert gradguard(folder, *cache)[1] == []


def test_fix_detaches_the_state_in_the_notebook_cell(tmp_path: Path) -> None:
    folder = _copy("buggy", tmp_path)
    code, _, stderr = gradguard(folder, "--no-cache", "--fix", "train.ipynb")
    assert code == 0, stderr
    cells = json.loads((folder / "train.ipynb").read_text())["cells"]
    assert "model(chunk, (hidden.detach() if hidden is not None else None))" in "".join(
        cells[3]["source"]
    )
    assert gradguard(folder, "--no-cache", "train.ipynb")[1] == []
