"""The workspace: folders coming and going, and pulled workspace diagnostics.

The files are those `gradguard check` would check in the workspace folders (see
`gradguard.workspace`); open documents are reported from the editor's text, closed ones
from disk.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from gradguard.lsp.documents import key_for
from gradguard.lsp.folders import drop_unusable_folders
from gradguard.lsp.state import Analysis, GradGuardServer


def did_change_workspace_folders(
    ls: GradGuardServer, params: types.DidChangeWorkspaceFoldersParams
) -> None:
    """Drop folders that name no usable path (pygls has added the new folders already)."""
    drop_unusable_folders(ls.workspace)


async def workspace_diagnostic(
    ls: GradGuardServer, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    """`workspace/diagnostic`: a report per file, "unchanged" where the result id matches."""
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
        reports.extend(_reports(analysis, previous))
        if analysis.snapshot.notebook is not None and uri not in analysis.diagnostics:
            # An open notebook shows its diagnostics on its cells: nothing stays on the file
            # (an earlier report, made while it was closed, put them there).
            reports.append(types.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=[]))
    return types.WorkspaceDiagnosticReport(items=reports)


def _reports(analysis: Analysis, previous: dict[str, str]) -> list[Any]:
    """One full or unchanged report per document the analysis shows diagnostics in."""
    reports: list[Any] = []
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
    return reports
