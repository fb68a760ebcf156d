"""A misspelt kind of analysis event is a type error, not a check that silently never fires."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mypy import api as mypy_api

SERVER = Path(__file__).resolve().parents[2] / "server"


def _mypy(tmp_path: Path, body: str) -> tuple[str, int]:
    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        "from gradguard.analysis.facts import ValueUse\n\n\n"
        f"def check(use: ValueUse) -> bool:\n    return {body}\n",
        encoding="utf-8",
    )
    out, _, status = mypy_api.run(
        [
            "--strict",
            "--no-incremental",
            "--python-version",
            f"{sys.version_info[0]}.{sys.version_info[1]}",
            str(snippet),
        ]
    )
    return out, status


def test_a_misspelt_event_kind_is_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MYPYPATH", str(SERVER))
    out, status = _mypy(tmp_path, 'use.kind == "convresion"')
    assert status == 1 and "Non-overlapping equality check" in out, out


def test_a_real_event_kind_is_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MYPYPATH", str(SERVER))
    out, status = _mypy(tmp_path, 'use.kind == "conversion"')
    assert status == 0, out
