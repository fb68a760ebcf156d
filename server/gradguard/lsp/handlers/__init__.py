"""The language server's handlers, one module per concern, each a plain module-level function.

`register` attaches them to a server (`gradguard.lsp.server.create_server` calls it). Every
handler takes the server and the request's params, so a test can call one directly.
"""

from __future__ import annotations

from lsprotocol import types

from gradguard.lsp import actions as code_actions
from gradguard.lsp.handlers import (
    actions,
    documents,
    hover,
    lifecycle,
    notebooks,
    settings,
    workspace,
)
from gradguard.lsp.state import GradGuardServer

DIAGNOSTIC_OPTIONS = types.DiagnosticOptions(
    identifier="gradguard", inter_file_dependencies=True, workspace_diagnostics=True
)
CODE_ACTION_OPTIONS = types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix, code_actions.FIX_ALL_KIND],
    resolve_provider=True,
)


def register(server: GradGuardServer) -> None:
    """Attach every GradGuard handler to `server`."""
    feature = server.feature
    feature(types.INITIALIZE)(lifecycle.initialize)
    feature(types.INITIALIZED)(lifecycle.initialized)
    feature(types.SHUTDOWN)(lifecycle.shutdown)
    feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(settings.did_change_configuration)
    feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(settings.did_change_watched_files)
    feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(workspace.did_change_workspace_folders)
    feature(types.TEXT_DOCUMENT_DID_OPEN)(documents.did_open)
    feature(types.TEXT_DOCUMENT_DID_CHANGE)(documents.did_change)
    feature(types.TEXT_DOCUMENT_DID_SAVE)(documents.did_save)
    feature(types.TEXT_DOCUMENT_DID_CLOSE)(documents.did_close)
    feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)(notebooks.did_open)
    feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)(notebooks.did_change)
    feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)(notebooks.did_save)
    feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)(notebooks.did_close)
    feature(types.TEXT_DOCUMENT_DIAGNOSTIC, DIAGNOSTIC_OPTIONS)(documents.document_diagnostic)
    feature(types.WORKSPACE_DIAGNOSTIC)(workspace.workspace_diagnostic)
    feature(types.TEXT_DOCUMENT_CODE_ACTION, CODE_ACTION_OPTIONS)(actions.code_action)
    feature(types.CODE_ACTION_RESOLVE)(actions.code_action_resolve)
    feature(types.TEXT_DOCUMENT_HOVER)(hover.hover)
    server.command(actions.APPLY_FIX_ALL)(actions.apply_fix_all)
