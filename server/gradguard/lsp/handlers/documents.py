"""Text documents: open, change, save, close, and pulled document diagnostics."""

from __future__ import annotations

from lsprotocol import types

from gradguard.lsp.documents import key_for
from gradguard.lsp.state import GradGuardServer


def did_open(ls: GradGuardServer, params: types.DidOpenTextDocumentParams) -> None:
    """Analyse a newly opened document at once."""
    ls.schedule(params.text_document.uri, delay_ms=0)


def did_change(ls: GradGuardServer, params: types.DidChangeTextDocumentParams) -> None:
    """Re-analyse after the debounce (a cell's change is a change of its notebook)."""
    ls.document_changed(params.text_document.uri)
    ls.schedule(params.text_document.uri)


def did_save(ls: GradGuardServer, params: types.DidSaveTextDocumentParams) -> None:
    """Re-analyse a saved document at once."""
    ls.schedule(params.text_document.uri, delay_ms=0)


def did_close(ls: GradGuardServer, params: types.DidCloseTextDocumentParams) -> None:
    """Forget a closed document; clear its pushed diagnostics (the workspace scope may
    publish them again from disk)."""
    uri = params.text_document.uri
    ls.forget(uri)
    if not ls.pull_mode:
        ls.clear([uri])
    ls.refresh_workspace_scope()


async def document_diagnostic(
    ls: GradGuardServer, params: types.DocumentDiagnosticParams
) -> types.DocumentDiagnosticReport:
    """`textDocument/diagnostic`: the current version's diagnostics, or "unchanged"."""
    uri = params.text_document.uri
    analysis = await ls.analyse(key_for(ls.workspace, uri))
    if analysis is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    items = analysis.diagnostics.get(uri, [])
    rid = analysis.result_ids.get(uri)
    if rid is not None and rid == params.previous_result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=rid)
    return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=rid)
