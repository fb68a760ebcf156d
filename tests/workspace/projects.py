"""The multi-file fixture projects: each bug shows only with facts from another file.

Every project under `projects/<name>/` has a `buggy/` and a `fixed/` copy. `entry` is the
script that trains (run with the project folder, and its `src/` when it has one, on the
import path); `reported` is the file GradGuard must report in, `elsewhere` the file the fact
comes from. `error` is what torch raises on the buggy copy, or None when the buggy copy
runs and prints `symptom` (the fixed copy then prints `healed`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECTS = HERE / "projects"
TIMEOUT = 120


@dataclass(frozen=True)
class Project:
    """One fixture project pair."""

    name: str
    code: str
    reported: str
    elsewhere: str
    error: str | None
    entry: str = "train.py"
    symptom: str = ""
    healed: str = ""

    def folder(self, variant: str) -> Path:
        """The `buggy` or `fixed` copy."""
        return PROJECTS / self.name / variant


NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"

CASES = [
    # A helper of a namespace package (lib/ has no __init__.py) runs under no_grad.
    Project("gg101_no_grad_helper", "GG101", "train.py", "lib/losses.py", NO_GRAD_FN),
    # `from .metrics import step_loss` inside a package: the loss is a float.
    Project(
        "gg102_item_helper",
        "GG102",
        "trainer/loop.py",
        "trainer/metrics.py",
        "'float' object has no attribute 'backward'",
    ),
    # A script in scripts/ imports utils.py from the project folder (pyproject.toml).
    Project(
        "gg103_detached_helper",
        "GG103",
        "scripts/train.py",
        "utils.py",
        NO_GRAD_FN,
        entry="scripts/train.py",
    ),
    # The backbone of features.py runs under inference_mode.
    Project(
        "gg106_inference_features",
        "GG106",
        "train.py",
        "features.py",
        "Inference tensors cannot be saved for backward",
    ),
    # The classifier of models.py ends with softmax; training converges worse.
    Project(
        "gg110_softmax_model",
        "GG110",
        "train.py",
        "models.py",
        None,
        symptom="converges-well False",
        healed="converges-well True",
    ),
    # The classifier of models/classifier.py gets a new head after the optimizer is built.
    Project(
        "gg604_replaced_head",
        "GG604",
        "train.py",
        "models/classifier.py",
        None,
        symptom="weights-moved False",
        healed="weights-moved True",
    ),
    # src/ layout: the LSTM of src/seqmodels/rnn.py, its state carried in train.py.
    Project(
        "gg201_rnn_state",
        "GG201",
        "train.py",
        "src/seqmodels/rnn.py",
        "Trying to backward through the graph a second time",
    ),
    # The detector of nets/detector.py ends with a sigmoid; the loss applies one again.
    Project(
        "gg111_sigmoid_detector",
        "GG111",
        "train.py",
        "nets/detector.py",
        None,
        symptom="converges-well False",
        healed="converges-well True",
    ),
    # The output width comes from models/autoencoder.py: a per-row error is not a scalar.
    Project(
        "gg501_per_row_error",
        "GG501",
        "train.py",
        "models/autoencoder.py",
        "grad can be implicitly created only for scalar outputs",
    ),
    # training/steps.py backpropagates and returns the loss tensor, which train.py sums.
    Project(
        "gg203_step_helper",
        "GG203",
        "train.py",
        "training/steps.py",
        None,
        symptom="graph-kept True",
        healed="graph-kept False",
    ),
    # models/__init__.py re-exports the MLP of models/mlp.py.
    Project(
        "gg502_numpy_model_output",
        "GG502",
        "train.py",
        "models/mlp.py",
        "Can't call numpy() on Tensor that requires grad",
    ),
]


@dataclass(frozen=True)
class Run:
    """How one project copy ran."""

    returncode: int
    stdout: str
    stderr: str


def run_entries(jobs: list[tuple[Project, str]], scratch: Path) -> dict[tuple[str, str], Run]:
    """Run the entry script of each (project, variant), all under one torch import (see
    `fork_runner.py`); the project folder and its `src/` come first on the import path."""
    described = []
    for number, (project, variant) in enumerate(jobs):
        folder = project.folder(variant)
        paths = [str(folder)] + ([str(folder / "src")] if (folder / "src").is_dir() else [])
        described.append(
            {
                "script": str(folder / project.entry),
                "cwd": str(folder),
                "path": paths,
                "stdout": str(scratch / f"{number}.out"),
                "stderr": str(scratch / f"{number}.err"),
            }
        )
    listing = scratch / "jobs.json"
    listing.write_text(json.dumps(described), encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "OMP_NUM_THREADS": "1"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    subprocess.run(
        [sys.executable, str(HERE / "fork_runner.py"), str(listing)],
        env=env,
        timeout=TIMEOUT,
        check=True,
    )
    runs = {}
    for job, (project, variant) in zip(described, jobs, strict=True):
        out, err = Path(job["stdout"]), Path(job["stderr"])
        status = Path(f"{out}.status").read_text(encoding="utf-8")
        runs[(project.name, variant)] = Run(
            int(status), out.read_text(encoding="utf-8"), err.read_text(encoding="utf-8")
        )
    return runs
