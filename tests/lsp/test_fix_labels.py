"""Fix titles and fix-all as a user meets them: unsafe fixes say so, "Fix all GGxxx" only
when there is more than one, a fix-all that applies nothing says why, and the noqa hover
shows its title once."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from .conftest import HIDDEN_STATE, HIDDEN_STATE_LINE, TIMEOUT, Session
from .edits import apply, edits_for
from .test_code_actions import actions_for, by_title

# GG501's only fix (sum before backward) changes the gradient's scale: it is unsafe.
NON_SCALAR = """\
import torch
from torch import nn
model = nn.Linear(10, 2)
x = torch.randn(4, 10)
out = model(x)
out.backward()
"""
# Two hidden states, each carried without `.detach()`: two safe GG201 fixes.
TWO_HIDDEN_STATES = (
    HIDDEN_STATE
    + """\
g = torch.zeros(1, 8)
for step in range(5):
    g_next = rnn(torch.randn(1, 4), g)
    loss = head(g_next).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    g = g_next
"""
)


async def _code_action(
    lsp: Session, uri: str, only: list[str], trigger: types.CodeActionTriggerKind
) -> list[types.CodeAction]:
    origin = types.Position(line=0, character=0)
    result = await lsp.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=origin, end=origin),
            context=types.CodeActionContext(diagnostics=[], only=only, trigger_kind=trigger),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def _shown(lsp: Session, needle: str) -> types.ShowMessageParams:
    async def wait() -> types.ShowMessageParams:
        while True:
            for message in lsp.client.messages:
                if needle in message.message:
                    return message
            await asyncio.sleep(0.02)

    return await asyncio.wait_for(wait(), TIMEOUT)


async def test_an_unsafe_fix_says_so_in_its_title(lsp: Session) -> None:
    uri = lsp.open("train.py", NON_SCALAR)
    diagnostics = [d for d in await lsp.diagnostics(uri, bool) if d.code == "GG501"]
    actions = await actions_for(lsp, uri, diagnostics)
    fix = by_title(actions, "GradGuard (GG501): Sum before backward (unsafe)")
    assert not fix.is_preferred
    safe_uri = lsp.open("safe.py", HIDDEN_STATE)
    safe = [d for d in await lsp.diagnostics(safe_uri, bool) if d.code == "GG201"]
    titles = [a.title for a in await actions_for(lsp, safe_uri, safe)]
    assert "GradGuard (GG201): Detach the hidden state" in titles, titles


async def test_fix_all_of_one_rule_needs_two_fixes(lsp: Session) -> None:
    one = lsp.open("one.py", HIDDEN_STATE)
    found = [d for d in await lsp.diagnostics(one, bool) if d.code == "GG201"]
    titles = [a.title for a in await actions_for(lsp, one, found)]
    assert "GradGuard: Fix all GG201 in this file" not in titles, titles

    two = lsp.open("two.py", TWO_HIDDEN_STATES)
    found = [d for d in await lsp.diagnostics(two, lambda d: len(d) >= 2) if d.code == "GG201"]
    assert len(found) == 2, found
    action = by_title(
        await actions_for(lsp, two, found[:1]), "GradGuard: Fix all GG201 in this file"
    )
    fixed = apply(TWO_HIDDEN_STATES, edits_for(action.edit, two))
    assert "h = h_next.detach()" in fixed and "g = g_next.detach()" in fixed


async def test_fix_all_command_says_why_nothing_was_applied(lsp: Session) -> None:
    uri = lsp.open("train.py", NON_SCALAR)
    await lsp.diagnostics(uri, bool)
    applied = await lsp.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="gradguard.applyFixAll", arguments=[uri])
    )
    assert applied is False
    message = await _shown(lsp, "nothing to fix automatically")
    assert message.type == types.MessageType.Info
    assert "1 finding has only unsafe fixes (GG501)" in message.message
    assert "gradguard.unsafeFixes" in message.message
    assert not lsp.client.applied_edits


async def test_requested_source_fix_all_says_why_it_is_empty(lsp: Session) -> None:
    uri = lsp.open("train.py", NON_SCALAR)
    await lsp.diagnostics(uri, bool)
    actions = await _code_action(lsp, uri, ["source.fixAll"], types.CodeActionTriggerKind.Invoked)
    caps = lsp.client.capabilities
    assert caps is not None and caps.text_document is not None
    disabled_support = caps.text_document.code_action.disabled_support  # type: ignore[union-attr]
    if disabled_support:  # VS Code: a greyed-out action that gives the reason
        [action] = actions
        assert action.disabled is not None
        assert "only unsafe fixes (GG501)" in action.disabled.reason
        assert action.edit is None
    else:  # Neovim: no action, and a message saying why
        assert actions == []
        await _shown(lsp, "only unsafe fixes (GG501)")


async def test_fix_all_on_save_stays_quiet(lsp: Session) -> None:
    uri = lsp.open("train.py", NON_SCALAR)
    await lsp.diagnostics(uri, bool)
    actions = await _code_action(lsp, uri, ["source.fixAll"], types.CodeActionTriggerKind.Automatic)
    assert actions == []
    # The hover is answered after the code action: any message would have arrived by now.
    await lsp.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
        )
    )
    assert not [m for m in lsp.client.messages if "nothing to fix" in m.message]


async def test_the_noqa_hover_shows_its_title_once(lsp: Session) -> None:
    text = HIDDEN_STATE.replace("    h = h_next\n", "    h = h_next  # noqa: GG201\n")
    uri = lsp.open("train.py", text)
    await lsp.diagnostics(uri)
    column = text.splitlines()[HIDDEN_STATE_LINE].index("GG201") + 1
    hover = await lsp.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=HIDDEN_STATE_LINE, character=column),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    value = hover.contents.value
    assert value.startswith("**GG201** `hidden-state-not-detached`\n\n## What it does"), value
    assert value.count("hidden-state-not-detached`") == 1, value
