"""Workspaces that try to stall or silence the server: FIFOs and endless devices named `*.py`,
and `pyproject.toml` files the TOML parser cannot take.

Closed files are read for `workspace/diagnostic` and for `scope: "workspace"`; reading a FIFO
on the event loop used to freeze the server for good (not even `shutdown` was answered).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import HIDDEN_STATE, TIMEOUT, Session, start_session


def gg201(items: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in items if d.code == "GG201"]


def plant_traps(root: Path) -> Path:
    """A FIFO and a link to an endless device, both named like Python files, next to a real
    buggy file; returns the real file."""
    os.mkfifo(root / "a_pipe.py")
    (root / "b_zero.py").symlink_to("/dev/zero")
    real = root / "c_real.py"
    real.write_text(HIDDEN_STATE, encoding="utf-8")
    return real


async def still_answers(lsp: Session) -> None:
    """The server answers a fresh document within the timeout."""
    uri = lsp.open("fresh.py", HIDDEN_STATE)
    assert gg201(await lsp.diagnostics(uri, lambda items: bool(items)))


@pytest.mark.parametrize("spec", ["neovim"])
async def test_workspace_diagnostic_passes_over_fifos_and_devices(
    raw_client: LanguageClient, tmp_path: Path, spec: str
) -> None:
    real = plant_traps(tmp_path)
    lsp, _ = await start_session(raw_client, spec, tmp_path)
    report = await asyncio.wait_for(
        lsp.client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[])
        ),
        TIMEOUT,
    )
    assert [item.uri for item in report.items] == [real.as_uri()]
    await still_answers(lsp)


async def test_workspace_scope_passes_over_fifos_and_devices(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    real = plant_traps(tmp_path)
    lsp, _ = await start_session(
        raw_client, "visual-studio-code", tmp_path, options={"scope": "workspace"}
    )
    assert gg201(await lsp.pushed(real.as_uri(), lambda items: bool(items)))
    await still_answers(lsp)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("a = " + "[" * 500 + "]" * 500 + "\n", "nested too deeply"),
        ('tool = "x"\n', "`tool` must be a table"),
        ("[tool.gradguard\n", "cannot read"),
    ],
    ids=["deep-array", "tool-not-a-table", "invalid-toml"],
)
async def test_a_broken_pyproject_warns_and_keeps_the_diagnostics(
    raw_client: LanguageClient, tmp_path: Path, content: str, problem: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(content, encoding="utf-8")
    lsp, _ = await start_session(raw_client, "visual-studio-code", tmp_path)
    uri = lsp.open("train.py", HIDDEN_STATE)
    assert gg201(await lsp.diagnostics(uri, lambda items: bool(items)))
    [message] = raw_client.messages
    assert message.type == types.MessageType.Warning
    assert "pyproject.toml" in message.message and problem in message.message
