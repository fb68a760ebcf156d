"""Real PyTorch proves the multi-file fixtures: each buggy project really fails (or trains
worse) and its fixed copy runs and trains. `torch` is imported on purpose: without it these
tests fail instead of skipping."""

from __future__ import annotations

import pytest
import torch
from projects import CASES, Project, Run, run_entries

Runs = dict[tuple[str, str], Run]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Every project copy run once, each in its own process forked after one torch import."""
    jobs = [(case, variant) for case in CASES for variant in ("buggy", "fixed")]
    return run_entries(jobs, tmp_path_factory.mktemp("projects"))


def _explain(result: Run) -> str:
    return f"exit {result.returncode}\n{result.stdout[-1500:]}\n{result.stderr[-2500:]}"


def test_torch_is_the_pinned_cpu_build() -> None:
    assert torch.__version__.startswith("2.13.0"), torch.__version__


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_buggy_project_fails_the_documented_way(case: Project, runs: Runs) -> None:
    result = runs[(case.name, "buggy")]
    if case.error is not None:
        assert result.returncode != 0, _explain(result)
        assert case.error in result.stderr, _explain(result)
    else:
        assert result.returncode == 0, _explain(result)
        assert case.symptom in result.stdout, _explain(result)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_fixed_project_runs_and_trains(case: Project, runs: Runs) -> None:
    result = runs[(case.name, "fixed")]
    assert result.returncode == 0, _explain(result)
    norms = [line for line in result.stdout.splitlines() if line.startswith("param-grad-norm ")]
    assert norms and float(norms[-1].split()[1]) > 0, _explain(result)
    if case.healed:
        assert case.healed in result.stdout, _explain(result)
