"""Code actions: the quick fix from `data`, "Disable for this line", fix-all, resolve."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from lsprotocol import types
from lsprotocol.types import Diagnostic
from pytest_lsp import LanguageClient

from .conftest import HIDDEN_STATE, HIDDEN_STATE_LINE, Session, start_session
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
    from .test_fix_labels import TWO_HIDDEN_STATES  # two GG201 findings: one is not "all"

    uri = lsp.open("train.py", TWO_HIDDEN_STATES)
    diagnostics = [d for d in await lsp.diagnostics(uri, lambda d: len(d) > 1) if d.code == "GG201"]
    action = by_title(
        await actions_for(lsp, uri, diagnostics), "GradGuard: Fix all GG201 in this file"
    )
    fixed = apply(TWO_HIDDEN_STATES, edits_for(action.edit, uri))
    assert fixed == TWO_HIDDEN_STATES.replace("_next\n", "_next.detach()\n")


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


# -- hostile or stale input -----------------------------------------------------------------


async def _gg201(raw_client: LanguageClient, tmp_path: Path) -> tuple[Session, str, Diagnostic]:
    lsp, _ = await start_session(raw_client, "visual-studio-code", tmp_path)
    uri = lsp.open("train.py", HIDDEN_STATE)
    [diagnostic] = [d for d in await lsp.diagnostics(uri, bool) if d.code == "GG201"]
    return lsp, uri, diagnostic


@pytest.mark.parametrize("data", [{"version": 1, "fixes": 5}, {"fixes": {"a": 1}}, "x", 7])
async def test_malformed_fix_data_is_ignored_and_the_rest_still_offered(
    raw_client: LanguageClient, tmp_path: Path, data: object
) -> None:
    lsp, uri, good = await _gg201(raw_client, tmp_path)
    mangled = attrs.evolve(good, data=data)
    titles = [a.title for a in await actions_for(lsp, uri, [mangled, good])]
    assert titles.count("GradGuard (GG201): Detach the hidden state") == 1  # from `good`
    assert "GradGuard: Disable GG201 for this line" in titles
    assert "GradGuard: Fix all auto-fixable problems" in titles


@pytest.mark.parametrize(
    "data",
    [
        {"action": "fix", "uri": "URI"},
        {"action": "fix", "uri": "URI", "edits": 3},
        {"action": "fix", "uri": "URI", "edits": [{"range": 5, "newText": "x"}]},
        {"action": "noqa", "uri": "URI"},
        {"action": "noqa", "uri": "URI", "edit": {"newText": "x"}},
        {"action": "noqa", "uri": "URI", "edit": "x", "version": 1},
        {"action": "fixAll"},
        {"action": "unknown", "uri": "URI"},
    ],
)
async def test_resolving_an_action_with_missing_keys_returns_it_unchanged(
    raw_client: LanguageClient, tmp_path: Path, data: dict[str, object]
) -> None:
    _, uri, _ = await _gg201(raw_client, tmp_path)
    payload = {key: uri if value == "URI" else value for key, value in data.items()}
    action = types.CodeAction(title="GradGuard: a forged action", data=payload)
    resolved = await raw_client.code_action_resolve_async(action)
    assert resolved.title == action.title
    assert resolved.edit is None


async def test_disable_for_this_line_is_not_offered_for_a_stale_diagnostic(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    lsp, uri, old = await _gg201(raw_client, tmp_path)
    lsp.replace(uri, "# a new first line\n" + HIDDEN_STATE)
    await lsp.diagnostics(
        uri, lambda ds: any(d.range.start.line == HIDDEN_STATE_LINE + 1 for d in ds)
    )
    titles = [a.title for a in await actions_for(lsp, uri, [old])]
    assert "GradGuard: Disable GG201 for this line" not in titles


async def test_a_noqa_action_resolved_after_an_edit_carries_no_edit(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    lsp, uri, diagnostic = await _gg201(raw_client, tmp_path)
    result = await raw_client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    [noqa] = [
        a
        for a in result or []
        if isinstance(a, types.CodeAction) and a.title == "GradGuard: Disable GG201 for this line"
    ]
    assert noqa.edit is None, "VS Code resolves edits lazily"
    lsp.replace(uri, "# a new first line\n" + HIDDEN_STATE)
    resolved = await raw_client.code_action_resolve_async(noqa)
    assert resolved.edit is None


async def test_lone_surrogates_in_the_text_are_served_normally(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    lsp, _ = await start_session(raw_client, "visual-studio-code", tmp_path)
    text = 'lone = "\ud800"\n' + HIDDEN_STATE + 'x = "\udfff"  # noqa: GG201\n'
    uri = lsp.uri("lone.py")  # not written to disk: no file encoding carries a lone surrogate
    raw_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=text
            )
        )
    )
    [diagnostic] = [d for d in await lsp.diagnostics(uri, bool) if d.code == "GG201"]
    assert diagnostic.range.start.line == HIDDEN_STATE_LINE + 1
    last = len(text.splitlines()) - 1
    hover = await raw_client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=last, character=text.splitlines()[last].index("GG201")),
        )
    )
    assert hover is not None and "GG201" in str(hover.contents)
    actions = await actions_for(lsp, uri, [diagnostic])
    fix = by_title(actions, "GradGuard (GG201): Detach the hidden state")
    fixed = apply(text, edits_for(fix.edit, uri)).splitlines()
    assert fixed[HIDDEN_STATE_LINE + 1] == "    h = h_next.detach()"
    noqa = by_title(actions, "GradGuard: Disable GG201 for this line")
    assert (
        apply(text, edits_for(noqa.edit, uri))
        .splitlines()[HIDDEN_STATE_LINE + 1]
        .endswith("# noqa: GG201")
    )
