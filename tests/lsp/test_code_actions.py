"""Code actions: the quick fix from `data`, "Disable for this line", fix-all, resolve."""

from __future__ import annotations

from lsprotocol import types

from .conftest import HIDDEN_STATE, HIDDEN_STATE_LINE, Session
from .edits import apply, edits_for

FIXED = HIDDEN_STATE.replace("    h = h_next\n", "    h = h_next.detach()\n")


async def actions_for(
    lsp: Session, uri: str, diagnostics: list[types.Diagnostic], only: list[str] | None = None
) -> list[types.CodeAction]:
    """Request code actions for the diagnostics' range and resolve every action lazily sent."""
    rng = (
        diagnostics[0].range
        if diagnostics
        else types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
        )
    )
    result = await lsp.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng,
            context=types.CodeActionContext(diagnostics=diagnostics, only=only),
        )
    )
    resolved: list[types.CodeAction] = []
    for action in result or []:
        assert isinstance(action, types.CodeAction)
        if action.edit is None:
            action = await lsp.client.code_action_resolve_async(action)
        resolved.append(action)
    return resolved


def by_title(actions: list[types.CodeAction], title: str) -> types.CodeAction:
    titles = [a.title for a in actions]
    matches = [a for a in actions if a.title == title]
    assert matches, f"{title!r} not in {titles}"
    return matches[0]


async def test_quick_fix_detaches_the_hidden_state(lsp: Session) -> None:
    uri = lsp.open("train.py", HIDDEN_STATE)
    diagnostics = [d for d in await lsp.diagnostics(uri) if d.code == "GG201"]
    actions = await actions_for(lsp, uri, diagnostics)
    fix = by_title(actions, "GradGuard (GG201): Detach the hidden state")
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.is_preferred
    assert fix.diagnostics and fix.diagnostics[0].code == "GG201"
    assert apply(HIDDEN_STATE, edits_for(fix.edit, uri)) == FIXED


async def test_disable_for_this_line_adds_noqa(lsp: Session) -> None:
    uri = lsp.open("train.py", HIDDEN_STATE)
    diagnostics = [d for d in await lsp.diagnostics(uri) if d.code == "GG201"]
    action = by_title(
        await actions_for(lsp, uri, diagnostics), "GradGuard: Disable GG201 for this line"
    )
    fixed = apply(HIDDEN_STATE, edits_for(action.edit, uri))
    assert fixed.splitlines()[HIDDEN_STATE_LINE] == "    h = h_next  # noqa: GG201"


async def test_disable_extends_an_existing_noqa(lsp: Session) -> None:
    text = HIDDEN_STATE.replace("    h = h_next\n", "    h = h_next  # noqa: E501\n")
    uri = lsp.open("train.py", text)
    diagnostics = [d for d in await lsp.diagnostics(uri) if d.code == "GG201"]
    action = by_title(
        await actions_for(lsp, uri, diagnostics), "GradGuard: Disable GG201 for this line"
    )
    fixed = apply(text, edits_for(action.edit, uri))
    assert fixed.splitlines()[HIDDEN_STATE_LINE] == "    h = h_next  # noqa: E501, GG201"


async def test_source_fix_all(lsp: Session) -> None:
    uri = lsp.open("train.py", HIDDEN_STATE)
    await lsp.diagnostics(uri)
    actions = await actions_for(lsp, uri, [], only=["source.fixAll"])
    [action] = actions
    assert action.kind == "source.fixAll.gradguard"
    assert apply(HIDDEN_STATE, edits_for(action.edit, uri)) == FIXED


async def test_fix_all_of_one_code(lsp: Session) -> None:
    uri = lsp.open("train.py", HIDDEN_STATE)
    diagnostics = [d for d in await lsp.diagnostics(uri) if d.code == "GG201"]
    action = by_title(
        await actions_for(lsp, uri, diagnostics), "GradGuard: Fix all GG201 in this file"
    )
    assert apply(HIDDEN_STATE, edits_for(action.edit, uri)) == FIXED


async def test_stale_diagnostics_offer_no_quick_fix(lsp: Session) -> None:
    uri = lsp.open("train.py", HIDDEN_STATE)
    diagnostics = [d for d in await lsp.diagnostics(uri) if d.code == "GG201"]
    moved = "# a new first line\n" + HIDDEN_STATE
    lsp.replace(uri, moved)
    await lsp.diagnostics(
        uri, lambda items: any(d.range.start.line == HIDDEN_STATE_LINE + 1 for d in items)
    )
    actions = await actions_for(lsp, uri, diagnostics)
    assert not [a for a in actions if a.title.startswith("GradGuard (GG201)")]


async def test_apply_fix_all_command(lsp: Session) -> None:
    uri = lsp.open("train.py", HIDDEN_STATE)
    await lsp.diagnostics(uri)
    applied = await lsp.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="gradguard.applyFixAll", arguments=[uri])
    )
    assert applied is True
    [request] = lsp.client.applied_edits
    assert apply(HIDDEN_STATE, edits_for(request.edit, uri)) == FIXED
