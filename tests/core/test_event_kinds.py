"""A misspelt kind of analysis event is a type error, not a check that silently never fires."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradguard.analysis.facts import Event, Events

SERVER = Path(__file__).resolve().parents[2] / "server"


def _mypy(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """mypy --strict on a snippet that reads the events of a module (in its own process: mypy
    changes interpreter-wide state such as the recursion limit)."""
    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        "from gradguard.analysis.facts import Conversion, ModuleAnalysis, ModuleCall\n\n\n"
        f"def check(analysis: ModuleAnalysis) -> list[str]:\n    return {body}\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(snippet)]
    env = {**os.environ, "MYPYPATH": str(SERVER)}
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


def test_events_of_a_kind_and_their_own_fields_are_typed(tmp_path: Path) -> None:
    """`of(Conversion)` is a `list[Conversion]`, so its own fields type-check; so are the
    events of two kinds."""
    body = (
        "[c.method for c in analysis.events.of(Conversion)] + [\n"
        "        e.method if isinstance(e, Conversion) else e.layer_class\n"
        "        for e in analysis.events.of(Conversion, ModuleCall)\n"
        "    ]"
    )
    done = _mypy(tmp_path, body)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("body", "error"),
    [
        # a misspelt kind
        ("[c.method for c in analysis.events.of(Convresion)]", 'Name "Convresion" is not defined'),
        # a field of another kind
        ("[c.layer_class for c in analysis.events.of(Conversion)]", "has no attribute"),
        # something that is no event
        ("[str(c) for c in analysis.events.of(str)]", "cannot be"),
    ],
)
def test_a_misspelt_event_kind_or_field_is_rejected(tmp_path: Path, body: str, error: str) -> None:
    done = _mypy(tmp_path, body)
    assert done.returncode == 1 and error in done.stdout, done.stdout


def test_asking_for_a_class_that_is_no_kind_of_event_fails_loudly() -> None:
    with pytest.raises(KeyError, match="not a kind of event"):
        Events().of(Event)
