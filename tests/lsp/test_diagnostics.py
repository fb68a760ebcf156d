"""Diagnostics end to end: ranges, codes, links, related information and fixes in `data`."""

from __future__ import annotations

from lsprotocol import types

from .conftest import HIDDEN_STATE, HIDDEN_STATE_LINE, Session


def gg201(items: list[types.Diagnostic] | tuple[types.Diagnostic, ...]) -> bool:
    return any(d.code == "GG201" for d in items)


async def test_hidden_state_is_reported_on_the_assignment(lsp: Session) -> None:
    uri = lsp.open("train.py", HIDDEN_STATE)
    items = await lsp.diagnostics(uri, gg201)
    [diagnostic] = [d for d in items if d.code == "GG201"]
    assert diagnostic.source == "gradguard"
    assert diagnostic.range.start == types.Position(line=HIDDEN_STATE_LINE, character=4)
    assert diagnostic.range.end.line == HIDDEN_STATE_LINE
    assert diagnostic.severity is not None
    assert diagnostic.code_description is not None
    assert "gg201" in diagnostic.code_description.href
    assert diagnostic.related_information, "the proof chain (loop, backward) is attached"
    assert all(r.location.uri == uri for r in diagnostic.related_information)
    fixes = diagnostic.data["fixes"]
    assert fixes and fixes[0]["edits"], diagnostic.data
    assert fixes[0]["safety"] in {"safe", "unsafe"}


async def test_half_typed_line_keeps_the_other_diagnostics(lsp: Session) -> None:
    uri = lsp.open("train.py", HIDDEN_STATE)
    await lsp.diagnostics(uri, gg201)
    typing = HIDDEN_STATE.replace("    opt.step()\n", "    opt.step(\n    print(loss.\n")
    lsp.replace(uri, typing)
    items = await lsp.diagnostics(uri, gg201)
    assert [d.range.start.line for d in items if d.code == "GG201"] == [HIDDEN_STATE_LINE + 1]
    assert all(d.source == "gradguard" for d in items), "syntax errors are left to other tools"


async def test_unrecoverable_text_keeps_the_last_result(lsp: Session) -> None:
    uri = lsp.open("train.py", HIDDEN_STATE)
    await lsp.diagnostics(uri, gg201)
    lsp.replace(uri, HIDDEN_STATE + '"""an unterminated docstring\n' * 12)
    items = await lsp.diagnostics(uri)
    assert gg201(items)


async def test_fixing_the_code_clears_the_diagnostic(lsp: Session) -> None:
    uri = lsp.open("train.py", HIDDEN_STATE)
    await lsp.diagnostics(uri, gg201)
    lsp.replace(uri, HIDDEN_STATE.replace("h = h_next\n", "h = h_next.detach()\n"))
    assert await lsp.diagnostics(uri, lambda items: not gg201(items)) == []


async def test_close_clears_pushed_diagnostics(lsp: Session) -> None:
    uri = lsp.open("train.py", HIDDEN_STATE)
    await lsp.diagnostics(uri, gg201)
    lsp.client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    if not lsp.pull:
        assert await lsp.pushed(uri) == []


async def test_pull_answers_unchanged_for_an_unchanged_document(lsp: Session) -> None:
    if not lsp.pull:
        return  # push clients never ask; covered by the neovim (0.11) capability set
    uri = lsp.open("train.py", HIDDEN_STATE)
    first = await lsp.client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(first, types.RelatedFullDocumentDiagnosticReport) and first.result_id
    again = await lsp.client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            previous_result_id=first.result_id,
        )
    )
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
    assert again.result_id == first.result_id
