"""Code actions: quick fixes from diagnostic `data`, "Disable for this line", fix-all.

Quick fixes are read back from the diagnostics the client sends (their `data` holds the
edits), so offering them never re-analyses. When the client supports
`codeAction/resolve`, actions are sent without edits and resolved on demand.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from lsprotocol import types

from gradguard.core.edits import compatible_fixes
from gradguard.core.engine import FixResult, applicable_fixes, fix_source
from gradguard.core.findings import Range, TextEdit
from gradguard.core.suppression import noqa_edit
from gradguard.core.text import SourceText
from gradguard.lsp.diagnostics import (
    SOURCE,
    Encoder,
    carried_fixes,
    carried_version,
    parse_edit,
)
from gradguard.lsp.documents import clean_text, key_for
from gradguard.lsp.fix_report import nothing_to_fix
from gradguard.lsp.state import GradGuardServer

log = logging.getLogger(__name__)

FIX_ALL_KIND = "source.fixAll.gradguard"
FIX_ALL_TITLE = "GradGuard: Fix all auto-fixable problems"


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    """LSP kind filtering: `only=["source.fixAll"]` admits `source.fixAll.gradguard`."""
    if not only:
        return True
    return any(kind == want or kind.startswith(f"{want}.") for want in only)


def _document_version(server: GradGuardServer, uri: str) -> int | None:
    document = server.workspace.text_documents.get(unquote(uri))
    return document.version if document is not None else None


def workspace_edit(
    server: GradGuardServer, edits_by_uri: dict[str, list[types.TextEdit]]
) -> types.WorkspaceEdit:
    """A workspace edit; versioned `documentChanges` when the client supports them."""
    if server.client_supports("workspace.workspace_edit.document_changes"):
        changes: list[Any] = [
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=uri, version=_document_version(server, uri)
                ),
                edits=list(edits),
            )
            for uri, edits in edits_by_uri.items()
        ]
        return types.WorkspaceEdit(document_changes=changes)
    return types.WorkspaceEdit(changes={uri: list(e) for uri, e in edits_by_uri.items()})


def _lsp_edit(source: SourceText, edit: TextEdit, encoding: str) -> types.TextEdit:
    return types.TextEdit(range=Encoder(source, encoding).range(edit.range), new_text=edit.new_text)


def _lazy(server: GradGuardServer) -> bool:
    """True when the client resolves code action edits on demand."""
    support = getattr(server.client_capabilities.text_document, "code_action", None)
    resolve = getattr(support, "resolve_support", None)
    return resolve is not None and "edit" in (resolve.properties or [])


def _action(
    server: GradGuardServer,
    title: str,
    kind: str,
    payload: dict[str, Any],
    *,
    diagnostics: list[types.Diagnostic] | None = None,
    preferred: bool | None = None,
    edit: types.WorkspaceEdit | None = None,
) -> types.CodeAction:
    """A code action carrying `payload`; its edit is attached now or on resolve."""
    lazy = _lazy(server)
    return types.CodeAction(
        title=title,
        kind=kind,
        diagnostics=diagnostics,
        is_preferred=preferred,
        edit=None if lazy else edit,
        data=payload,
    )


async def code_actions(
    server: GradGuardServer, params: types.CodeActionParams
) -> list[types.CodeAction]:
    """Every GradGuard action for the diagnostics in the request's range.

    A diagnostic's fixes and its line are offered only while they describe the current
    text: its `data` names the version it was computed for (a diagnostic without one
    must still be reported, at the same place, by the current analysis).
    """
    uri = params.text_document.uri
    only = params.context.only
    key = key_for(server.workspace, uri)
    actions: list[types.CodeAction] = []
    fixable_codes: dict[str, list[types.Diagnostic]] = defaultdict(list)
    for diagnostic in params.context.diagnostics:
        if diagnostic.source != SOURCE or not isinstance(diagnostic.code, str):
            continue
        if not _wanted(types.CodeActionKind.QuickFix, only):
            continue
        code = diagnostic.code
        version, fixes = carried_fixes(diagnostic)
        now = server.current_version(key)
        if now is None or not await _describes(server, key, uri, diagnostic, version, now):
            continue  # stale or forged: its fixes and its line may be for another text
        for fix in fixes:
            edit = workspace_edit(server, {uri: list(fix.edits)})
            edits = server.protocol._converter.unstructure(list(fix.edits))
            actions.append(
                _action(
                    server,
                    fix_title(code, fix.title, safe=fix.safe),
                    types.CodeActionKind.QuickFix,
                    {"action": "fix", "uri": uri, "edits": edits, "version": now},
                    diagnostics=[diagnostic],
                    preferred=fix.safe or None,
                    edit=edit,
                )
            )
        if fixes:
            fixable_codes[code].append(diagnostic)
        noqa = noqa_action(server, uri, diagnostic.range.start.line, code, [diagnostic], now)
        if noqa is not None:
            actions.append(noqa)
    for code, diagnostics in fixable_codes.items():
        if await _fix_count(server, key, frozenset({code})) < 2:
            continue  # one fix: its own quick fix already does it
        payload: dict[str, Any] = {"action": "fixAll", "uri": uri, "codes": [code]}
        actions.append(
            _action(
                server,
                f"GradGuard: Fix all {code} in this file",
                types.CodeActionKind.QuickFix,
                payload,
                diagnostics=diagnostics,
                edit=None if _lazy(server) else await _fix_all_edit(server, uri, [code]),
            )
        )
    if _wanted(FIX_ALL_KIND, only):
        fix_all = await _source_fix_all(server, params, key)
        if fix_all is not None:
            actions.append(fix_all)
    return actions


def fix_title(code: str, title: str, *, safe: bool) -> str:
    """A quick fix's title: `GradGuard (GG201): Detach the hidden state`, and `(unsafe)`
    after a fix that may change what the program does (fix-all skips those by default)."""
    return f"GradGuard ({code}): {title}" + ("" if safe else " (unsafe)")


async def _source_fix_all(
    server: GradGuardServer, params: types.CodeActionParams, key: str
) -> types.CodeAction | None:
    """The `source.fixAll` action, when there is something to apply.

    When there is nothing and the user asked for fix-all by name (not the editor on its
    own, e.g. on save), say why: as the action's `disabled` reason when the client shows
    those, else as a message.
    """
    uri = params.text_document.uri
    payload: dict[str, Any] = {"action": "fixAll", "uri": uri, "codes": None}
    if await _fix_count(server, key, None):
        edit = None if _lazy(server) else await _fix_all_edit(server, uri, None)
        return _action(server, FIX_ALL_TITLE, FIX_ALL_KIND, payload, edit=edit)
    if not _asked_for_fix_all(params.context):
        return None
    reason = await _why_nothing(server, key, None)
    if reason is None:
        return None
    if server.client_supports("text_document.code_action.disabled_support"):
        action = _action(server, FIX_ALL_TITLE, FIX_ALL_KIND, payload)
        action.disabled = types.CodeActionDisabled(reason=reason)
        return action
    _tell(server, reason)
    return None


def _asked_for_fix_all(context: types.CodeActionContext) -> bool:
    """True when the user (not the editor by itself) requested `source.fixAll` by kind."""
    automatic = context.trigger_kind == types.CodeActionTriggerKind.Automatic
    return not automatic and any(
        kind.startswith(types.CodeActionKind.SourceFixAll) for kind in context.only or []
    )


async def _describes(
    server: GradGuardServer,
    key: str,
    uri: str,
    diagnostic: types.Diagnostic,
    version: int | None,
    now: int,
) -> bool:
    """True when `diagnostic` (carrying `version`, if any) is about the text of version `now`."""
    if version is not None:
        return version == now
    analysis = await server.analyse(key)
    if analysis is None or analysis.snapshot.version != now:
        return False
    return any(
        shown.code == diagnostic.code and shown.range == diagnostic.range
        for shown in analysis.diagnostics.get(uri, [])
    )


async def _fix_count(server: GradGuardServer, key: str, codes: frozenset[str] | None) -> int:
    """How many fixes (of `codes`, if given) a fix-all would apply to the current analysis."""
    analysis = await server.analyse(key)
    if analysis is None:
        return 0
    settings = server.settings_for(analysis.snapshot.path)
    findings = analysis.checked.result.findings
    return len(applicable_fixes(findings, unsafe=settings.unsafe_fixes, codes=codes))


async def _why_nothing(
    server: GradGuardServer, key: str, codes: frozenset[str] | None
) -> str | None:
    """Why a fix-all of `key` (only `codes`, when given) applies nothing."""
    analysis = await server.analyse(key)
    if analysis is None:
        return None
    settings = server.settings_for(analysis.snapshot.path)
    findings = analysis.checked.result.findings
    return nothing_to_fix(findings, unsafe=settings.unsafe_fixes, codes=codes)


def _tell(server: GradGuardServer, message: str) -> None:
    """An information message the user sees (`window/showMessage`)."""
    log.info("%s", message)
    server.window_show_message(
        types.ShowMessageParams(type=types.MessageType.Info, message=message)
    )


def noqa_action(
    server: GradGuardServer,
    uri: str,
    line: int,
    code: str,
    diagnostics: list[types.Diagnostic],
    version: int,
) -> types.CodeAction | None:
    """'Disable GG201 for this line': add or extend the line's `# noqa` comment.

    The edit is for document version `version`; resolving it later refuses another one.
    """
    document = server.workspace.text_documents.get(unquote(uri))
    if document is None:
        return None
    source = SourceText(clean_text(document.source))
    if line >= source.line_count:
        return None
    edit = noqa_edit(source, line, code)
    if edit.range.start == edit.range.end and not edit.new_text:
        return None  # the line already suppresses this code
    lsp_edit = _lsp_edit(source, edit, server.encoding)
    payload = {
        "action": "noqa",
        "uri": uri,
        "edit": server.protocol._converter.unstructure(lsp_edit),
        "version": version,
    }
    return _action(
        server,
        f"GradGuard: Disable {code} for this line",
        types.CodeActionKind.QuickFix,
        payload,
        diagnostics=diagnostics,
        edit=workspace_edit(server, {uri: [lsp_edit]}),
    )


async def resolve(server: GradGuardServer, action: types.CodeAction) -> types.CodeAction:
    """Attach the edit of a lazily sent action.

    `data` comes back from the client: an action whose data is malformed, or whose edits
    were computed for a version of the document that is no longer current, is returned
    unchanged (without an edit).
    """
    data = action.data if isinstance(action.data, Mapping) else {}
    uri = data.get("uri")
    if action.edit is not None or not isinstance(uri, str):
        return action
    kind = data.get("action")
    if kind == "fixAll":
        codes = data.get("codes")
        if codes is None or (isinstance(codes, list) and all(isinstance(c, str) for c in codes)):
            action.edit = await fix_all_edit(server, uri, codes)
        return action
    if kind not in ("fix", "noqa"):
        return action
    version = carried_version(data.get("version"))
    if version is None or version != server.current_version(key_for(server.workspace, uri)):
        return action  # the document changed since the action was offered
    raw = data.get("edits") if kind == "fix" else [data.get("edit")]
    try:
        edits = [parse_edit(edit) for edit in raw] if isinstance(raw, list) else None
    except (KeyError, TypeError, ValueError):
        edits = None
    if edits:
        action.edit = workspace_edit(server, {uri: edits})
    return action


async def fix_all_edit(
    server: GradGuardServer, uri: str, codes: list[str] | None
) -> types.WorkspaceEdit | None:
    """The edit of a fix-all the user chose (a resolved action, the fix-all command).

    When it would apply nothing the user is told why (`window/showMessage`), rather than
    left wondering whether anything ran.
    """
    edit = await _fix_all_edit(server, uri, codes)
    if edit is None:
        key = key_for(server.workspace, uri)
        wanted = frozenset(codes) if codes is not None else None
        reason = await _why_nothing(server, key, wanted)
        if reason is not None:
            _tell(server, reason)
    return edit


async def _fix_all_edit(
    server: GradGuardServer, uri: str, codes: list[str] | None
) -> types.WorkspaceEdit | None:
    """Apply every allowed fix (safe ones unless `unsafeFixes`) to the current text."""
    key = key_for(server.workspace, uri)
    snap = server.snapshot(key)
    if snap is None:
        return None
    settings = server.settings_for(snap.path)
    wanted = frozenset(codes) if codes is not None else None
    if snap.notebook is not None:
        return await _fix_all_notebook(server, key, wanted)
    loop = asyncio.get_running_loop()

    def fix() -> FixResult:
        # With the project's facts, as the diagnostics whose fixes this applies were made.
        with server.project.checking(snap.path):
            return fix_source(
                snap.text,
                path=snap.path,
                settings=settings,
                unsafe=settings.unsafe_fixes,
                codes=wanted,
            )

    result = await loop.run_in_executor(server.executor, fix)
    if result.applied == 0 or result.text == snap.text:
        return None
    edit = minimal_edit(snap.text, result.text)
    return workspace_edit(server, {uri: [_lsp_edit(SourceText(snap.text), edit, server.encoding)]})


async def _fix_all_notebook(
    server: GradGuardServer, key: str, codes: frozenset[str] | None
) -> types.WorkspaceEdit | None:
    """One round of compatible fixes, each confined to a single cell."""
    analysis = await server.analyse(key)
    if analysis is None or analysis.snapshot.notebook is None:
        return None
    snap = analysis.snapshot
    settings = server.settings_for(snap.path)
    source = SourceText(snap.text)
    encoder = Encoder(source, server.encoding)
    fixes = compatible_fixes(
        source,
        applicable_fixes(
            analysis.checked.result.findings, unsafe=settings.unsafe_fixes, codes=codes
        ),
    )
    by_cell: dict[str, list[types.TextEdit]] = defaultdict(list)
    for fix in fixes:
        mapped = [(edit, snap.map_range(edit.range)) for edit in fix.edits]
        cells = {m[0] for _, m in mapped if m is not None}
        if any(m is None for _, m in mapped) or len(cells) != 1:
            continue  # a fix spanning cells cannot be applied cell by cell
        for edit, target in mapped:
            assert target is not None
            shift = edit.range.start.line - target[1].start.line
            by_cell[target[0]].append(
                types.TextEdit(range=encoder.range(edit.range, shift), new_text=edit.new_text)
            )
    if not by_cell:
        return None
    return workspace_edit(server, dict(by_cell))


def minimal_edit(old: str, new: str) -> TextEdit:
    """One edit turning `old` into `new`: the span between their common prefix and suffix."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    # Never split a CRLF line break: a position between \r and \n is not a position.
    if 0 < prefix < len(old) and old[prefix - 1] == "\r" and old[prefix] == "\n":
        prefix -= 1
    start = len(old) - suffix
    if 0 < start < len(old) and old[start] == "\n" and old[start - 1] == "\r":
        suffix -= 1
    source = SourceText(old)
    rng = Range(source.position_at(prefix), source.position_at(len(old) - suffix))
    return TextEdit(rng, new[prefix : len(new) - suffix])
