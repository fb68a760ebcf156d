"""`gradguard lsp`: thin LSP handlers over the engine shared with `gradguard check`.

Handlers only translate between LSP and the engine (`gradguard.core.engine.check_source`,
via `gradguard.core.recovery.check_with_recovery`); scheduling and caching live in
`gradguard.lsp.state`, code actions in `gradguard.lsp.actions`.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from typing import Any, BinaryIO
from urllib.parse import unquote

from lsprotocol import types

import gradguard
from gradguard.core.rule import rule_by_code
from gradguard.core.suppression import comments
from gradguard.core.text import SourceText
from gradguard.lsp import actions
from gradguard.lsp.documents import clean_text, key_for
from gradguard.lsp.folders import drop_unusable_folders
from gradguard.lsp.logs import setup_logging
from gradguard.lsp.rule_docs import hover_markdown
from gradguard.lsp.state import GradGuardServer
from gradguard.lsp.transport import run_stdio, run_tcp

log = logging.getLogger(__name__)

APPLY_FIX_ALL = "gradguard.applyFixAll"
_CODE_IN_COMMENT = re.compile(r"\b[A-Z]{2,}[0-9]{3}\b")
_NOQA_WORD = re.compile(r"noqa", re.I)


def create_server() -> GradGuardServer:
    """A fresh server with every GradGuard feature registered."""
    server = GradGuardServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: GradGuardServer, params: types.InitializeParams) -> None:
        client = params.client_info.name if params.client_info else "an unnamed client"
        log.info("GradGuard %s serving %s", gradguard.__version__, client)
        drop_unusable_folders(ls.workspace)
        ls.options_from_initialization = params.initialization_options is not None
        if params.initialization_options is not None:
            # Nothing is open yet, and the client must see the initialize result first.
            ls.update_options(params.initialization_options, refresh=False)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: GradGuardServer, params: types.InitializedParams) -> None:
        if ls.client_supports("workspace.did_change_watched_files.dynamic_registration"):
            await register_pyproject_watcher(ls)
        if not ls.options_from_initialization and ls.client_supports("workspace.configuration"):
            await pull_configuration(ls)
        else:
            ls.refresh_workspace_scope()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: GradGuardServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and settings and settings.get("gradguard", {}) is not None:
            ls.update_options(settings)
        elif ls.client_supports("workspace.configuration"):
            await pull_configuration(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(
        ls: GradGuardServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        if any(unquote(change.uri).endswith("pyproject.toml") for change in params.changes):
            log.info("pyproject.toml changed; re-applying settings")
            ls.settings_changed()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_workspace_folders(
        ls: GradGuardServer, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        drop_unusable_folders(ls.workspace)  # pygls has added the new folders already

    # -- text documents --------------------------------------------------------------------

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: GradGuardServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, delay_ms=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: GradGuardServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.document_changed(params.text_document.uri)
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: GradGuardServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, delay_ms=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: GradGuardServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.forget(uri)
        if not ls.pull_mode:
            ls.clear([uri])
        ls.refresh_workspace_scope()

    # -- notebooks -------------------------------------------------------------------------

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls: GradGuardServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.notebook_versions.bump(params.notebook_document.uri)
        ls.schedule(params.notebook_document.uri, delay_ms=0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(
        ls: GradGuardServer, params: types.DidChangeNotebookDocumentParams
    ) -> None:
        uri = params.notebook_document.uri
        ls.notebook_versions.bump(uri)
        structure = params.change.cells.structure if params.change.cells else None
        if structure is not None and structure.did_close and not ls.pull_mode:
            ls.clear([cell.uri for cell in structure.did_close])
        ls.schedule(uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(ls: GradGuardServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, delay_ms=0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(
        ls: GradGuardServer, params: types.DidCloseNotebookDocumentParams
    ) -> None:
        ls.forget(params.notebook_document.uri)
        ls.notebook_versions.forget(params.notebook_document.uri)
        if not ls.pull_mode:
            ls.clear([cell.uri for cell in params.cell_text_documents])

    # -- pull diagnostics ------------------------------------------------------------------

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="gradguard", inter_file_dependencies=False, workspace_diagnostics=True
        ),
    )
    async def document_diagnostic(
        ls: GradGuardServer, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        uri = params.text_document.uri
        analysis = await ls.analyse(key_for(ls.workspace, uri))
        if analysis is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        items = analysis.diagnostics.get(uri, [])
        rid = analysis.result_ids.get(uri)
        if rid is not None and rid == params.previous_result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=rid)
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=rid)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostic(
        ls: GradGuardServer, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        ls.workspace_pulled = True
        previous = {p.uri: p.value for p in params.previous_result_ids}
        reports: list[Any] = []
        for path in await ls.workspace_file_list():
            uri = path.as_uri()
            if ls.is_open(uri):
                analysis = await ls.analyse(key_for(ls.workspace, uri))
            else:
                analysis = await ls.analyse_closed(path)
            if analysis is None:
                continue
            for shown, items in analysis.diagnostics.items():
                rid = analysis.result_ids[shown]
                version = analysis.snapshot.version if shown == analysis.snapshot.key else None
                if previous.get(shown) == rid:
                    reports.append(
                        types.WorkspaceUnchangedDocumentDiagnosticReport(
                            uri=shown, version=version, result_id=rid
                        )
                    )
                else:
                    reports.append(
                        types.WorkspaceFullDocumentDiagnosticReport(
                            uri=shown, version=version, items=items, result_id=rid
                        )
                    )
        return types.WorkspaceDiagnosticReport(items=reports)

    # -- code actions, hover, commands -----------------------------------------------------

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL_KIND],
            resolve_provider=True,
        ),
    )
    async def code_action(
        ls: GradGuardServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        return await actions.code_actions(ls, params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(
        ls: GradGuardServer, params: types.CodeAction
    ) -> types.CodeAction:
        return await actions.resolve(ls, params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: GradGuardServer, params: types.HoverParams) -> types.Hover | None:
        return rule_hover(ls, params.text_document.uri, params.position)

    @server.command(APPLY_FIX_ALL)
    async def apply_fix_all(ls: GradGuardServer, *args: Any) -> bool:
        uri = _uri_argument(args)
        if uri is None:
            log.warning("%s needs a document URI argument, got %r", APPLY_FIX_ALL, args)
            return False
        edit = await actions.fix_all_edit(ls, uri, None)
        if edit is None:
            return False
        result = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label="GradGuard: Fix all")
        )
        return bool(result.applied)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: GradGuardServer, params: None) -> None:
        ls.executor.shutdown(wait=False, cancel_futures=True)

    return server


async def register_pyproject_watcher(ls: GradGuardServer) -> None:
    """Ask the client to tell us about `pyproject.toml` changes (dynamic registration)."""
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="gradguard-pyproject",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=[types.FileSystemWatcher(glob_pattern="**/pyproject.toml")]
                        ),
                    )
                ]
            )
        )
    except Exception:  # the client refused: settings then apply on restart or config change
        log.warning("could not register a pyproject.toml watcher", exc_info=True)


async def pull_configuration(ls: GradGuardServer) -> None:
    """Ask the client for the `gradguard` settings section (`workspace/configuration`)."""
    try:
        values = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="gradguard")])
        )
    except Exception:  # a client that fails the request keeps the current settings
        log.warning("workspace/configuration failed; keeping current settings", exc_info=True)
        return
    ls.update_options(values[0] if values else None)


def _uri_argument(args: tuple[Any, ...]) -> str | None:
    """The document URI from a command's arguments (`[uri]`, `uri` or `{"uri": ...}`)."""
    value: Any = args
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    if isinstance(value, dict):
        value = value.get("uri")
    return value if isinstance(value, str) else None


def rule_hover(ls: GradGuardServer, uri: str, position: types.Position) -> types.Hover | None:
    """The rule's documentation when hovering a code in a `# noqa` comment."""
    document = ls.workspace.text_documents.get(unquote(uri))
    if document is None:
        return None
    source = SourceText(clean_text(document.source))
    if position.line >= source.line_count:
        return None
    at = source.from_units(position.line, position.character, ls.encoding)
    line_comments = [c for c in comments(source) if c.line == at.line]
    for comment in line_comments:
        if not _NOQA_WORD.search(comment.text):
            continue
        for match in _CODE_IN_COMMENT.finditer(comment.text):
            start = comment.column + match.start()
            end = comment.column + match.end()
            if not start <= at.character <= end:
                continue
            rule = rule_by_code(match.group(0))
            if rule is None:
                return None
            text = hover_markdown(rule)
            start_pos = types.Position(
                line=at.line,
                character=source.to_units(type(at)(at.line, start), ls.encoding),
            )
            end_pos = types.Position(
                line=at.line, character=source.to_units(type(at)(at.line, end), ls.encoding)
            )
            return types.Hover(
                contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                range=types.Range(start=start_pos, end=end_pos),
            )
    return None


def _protect_stdout() -> BinaryIO:
    """Keep fd 1 for JSON-RPC only: anything else that prints lands on stderr instead."""
    rpc = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return rpc


def start(tcp: str | None = None) -> int:
    """Run the language server on stdio, or on `HOST:PORT` when `tcp` is given.

    Returns the process exit status: 0 after `shutdown` then `exit` (or when the client
    goes away), 1 after `exit` without `shutdown`.
    """
    server = create_server()
    setup_logging(server)
    try:
        if tcp:
            host, _, port = tcp.rpartition(":")
            return run_tcp(server.protocol, host or "127.0.0.1", int(port))
        rpc_out = _protect_stdout()
        return run_stdio(server.protocol, sys.stdin.buffer, rpc_out)
    finally:
        server.executor.shutdown(wait=False, cancel_futures=True)
