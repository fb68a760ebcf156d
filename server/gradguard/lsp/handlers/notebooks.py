"""Notebook documents: a notebook is analysed as one module under its own URI."""

from __future__ import annotations

from lsprotocol import types

from gradguard.lsp.state import GradGuardServer


def did_open(ls: GradGuardServer, params: types.DidOpenNotebookDocumentParams) -> None:
    """Analyse a newly opened notebook at once (its cells now show the diagnostics that
    the workspace scope published on the closed file)."""
    uri = params.notebook_document.uri
    ls.notebook_versions.bump(uri)
    ls.opened_from_disk(uri)
    ls.schedule(uri, delay_ms=0)


def did_change(ls: GradGuardServer, params: types.DidChangeNotebookDocumentParams) -> None:
    """Re-analyse after the debounce; clear the diagnostics of removed cells."""
    uri = params.notebook_document.uri
    ls.notebook_versions.bump(uri)
    structure = params.change.cells.structure if params.change.cells else None
    if structure is not None and structure.did_close and not ls.pull_mode:
        ls.clear([cell.uri for cell in structure.did_close])
    ls.schedule(uri)


def did_save(ls: GradGuardServer, params: types.DidSaveNotebookDocumentParams) -> None:
    """Re-analyse a saved notebook at once."""
    ls.schedule(params.notebook_document.uri, delay_ms=0)


def did_close(ls: GradGuardServer, params: types.DidCloseNotebookDocumentParams) -> None:
    """Forget a closed notebook and clear its cells' pushed diagnostics."""
    ls.forget(params.notebook_document.uri)
    ls.notebook_versions.forget(params.notebook_document.uri)
    if not ls.pull_mode:
        ls.clear([cell.uri for cell in params.cell_text_documents])
