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
