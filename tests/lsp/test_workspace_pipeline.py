"""`gradguard check .` and the editor's workspace diagnostics report the same files.

One temporary tree holds every case the two front ends used to disagree on: a `.gitignore`
(a directory and a file), skipped directories (build output, a hidden folder, a virtual
environment under a name no list knows), a stub, a UTF-8 file with a BOM, a latin-1 file
with a PEP 263 coding cookie, and a notebook. Every candidate carries the same GG201 bug,
so a file is "reported" exactly when it was discovered and read. The CLI runs as a real
process; the server answers a real `workspace/diagnostic` request over JSON-RPC.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from lsprotocol import types
from notebook_cells import LOOP, SETUP
from pytest_lsp import LanguageClient

from .conftest import HIDDEN_STATE, start_session
from .notebook_documents import open_notebook

REPORTED = {"plain.py", "bom.py", "latin1.py", "nb.ipynb", "pkg/kept.py"}


def _notebook(*sources: str) -> str:
    cells = [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": f"cell{index}",
            "metadata": {},
            "outputs": [],
            "source": source.splitlines(keepends=True),
        }
        for index, source in enumerate(sources)
    ]
    metadata = {"kernelspec": {"language": "python", "name": "python3", "display_name": "P"}}
    document = {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(document, indent=1) + "\n"


def build_tree(root: Path) -> None:
    """Files that must be reported (`REPORTED`) and files both front ends must leave out."""

    def put(name: str, data: bytes) -> None:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    bug = HIDDEN_STATE.encode("utf-8")
    put(".gitignore", b"ignored/\ngenerated.py\n")
    put("plain.py", bug)
    put("bom.py", b"\xef\xbb\xbf" + bug)
    latin1 = "# -*- coding: latin-1 -*-\n# d\u00e9tach\u00e9 plus tard\n" + HIDDEN_STATE
    put("latin1.py", latin1.encode("latin-1"))
    put("nb.ipynb", _notebook(SETUP, LOOP).encode("utf-8"))
    put("pkg/kept.py", bug)
    put("generated.py", bug)  # git-ignored file
    put("ignored/bug.py", bug)  # git-ignored directory
    put("build/bug.py", bug)  # build output
    put("dist/bug.py", bug)
    put(".hidden/bug.py", bug)
    put("myenv/pyvenv.cfg", b"home = /usr/bin\n")  # a virtual environment by its marker
    put("myenv/lib/site.py", bug)
    put("stub.pyi", bug)  # stubs are not checked


def cli_reported(root: Path) -> set[str]:
    """The files `gradguard check .` reports findings in (run as a real process)."""
    proc = subprocess.run(
        [sys.executable, "-m", "gradguard", "check", "--no-cache", "--output-format", "json", "."],
        cwd=root,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr.decode()
    assert proc.stderr == b"", proc.stderr.decode()
    return {finding["filename"] for finding in json.loads(proc.stdout)}


async def server_reported(client: LanguageClient, root: Path) -> set[str]:
    """The files the server's `workspace/diagnostic` report shows diagnostics in."""
    await start_session(client, "visual-studio-code", root)
    report = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    shown: set[str] = set()
    for item in report.items:
        assert isinstance(item, types.WorkspaceFullDocumentDiagnosticReport)
        if any(d.code == "GG201" for d in item.items):
            path = Path(unquote(urlparse(item.uri).path))
            shown.add(path.relative_to(root).as_posix())
    return shown


@pytest.mark.parametrize("repository", ["plain-folder", "git-work-tree"])
async def test_cli_and_workspace_diagnostics_report_the_same_files(
    raw_client: LanguageClient, tmp_path: Path, repository: str
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    build_tree(root)
    if repository == "git-work-tree":
        git = shutil.which("git")
        assert git is not None, "git is part of the test environment (scripts/setup.d)"
        subprocess.run([git, "init", "-q", str(root)], check=True)
    cli = cli_reported(root)
    assert cli == REPORTED
    assert await server_reported(raw_client, root) == cli


async def test_a_closed_notebook_is_shown_on_its_cells_lines(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    # A closed notebook's diagnostics sit on the lines of its JSON that hold the code, and
    # carry no fixes (their edits are edits of cells, not of the JSON).
    text = _notebook(SETUP, LOOP)
    (tmp_path / "nb.ipynb").write_text(text, encoding="utf-8")
    await start_session(raw_client, "visual-studio-code", tmp_path)
    report = await raw_client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    [item] = report.items
    assert isinstance(item, types.WorkspaceFullDocumentDiagnosticReport)
    [diagnostic] = [d for d in item.items if d.code == "GG201"]
    json_line = text.splitlines()[diagnostic.range.start.line]
    assert json_line.strip() == json.dumps("    h = h_next\n")
    assert diagnostic.data is None


async def test_opening_a_notebook_moves_its_diagnostics_from_the_file_to_the_cells(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text(_notebook(SETUP, LOOP), encoding="utf-8")
    lsp, _ = await start_session(
        raw_client, "neovim@v0.7", tmp_path, options={"scope": "workspace"}, notebooks=True
    )
    on_file = await lsp.pushed(notebook.as_uri(), lambda items: bool(items))
    assert [d.code for d in on_file] == ["GG201"]
    cells = open_notebook(raw_client, notebook, [(SETUP, "python"), (LOOP, "python")])
    assert await lsp.pushed(notebook.as_uri()) == []  # cleared from the file
    on_cell = await lsp.pushed(cells[1], lambda items: bool(items))
    assert [d.code for d in on_cell] == ["GG201"]
