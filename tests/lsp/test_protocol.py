"""Position encodings, settings, pyproject.toml, hover, workspace diagnostics."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from gradguard.core.rule import rule_by_code

from .conftest import HIDDEN_STATE, HIDDEN_STATE_LINE, Session, initialize_params, start_session
from .edits import apply

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
# CJK text and an emoji (two UTF-16 units, four UTF-8 bytes) before the flagged statement.
PREFIX = '    note = "梯度🙂"; '
WIDE = HIDDEN_STATE.replace("    h = h_next\n", f"{PREFIX}h = h_next\n")
UNITS = {
    "utf-16": len(PREFIX.encode("utf-16-le")) // 2,
    "utf-8": len(PREFIX.encode("utf-8")),
    "utf-32": len(PREFIX),
}


def gg201(items: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in items if d.code == "GG201"]


async def _columns_in(client: LanguageClient, tmp_path: Path, offered: list[str] | None) -> None:
    lsp, result = await start_session(client, "visual-studio-code", tmp_path, encodings=offered)
    encoding = str(result.capabilities.position_encoding or "utf-16")
    assert encoding == (offered[0] if offered else "utf-16")
    uri = lsp.open("wide.py", WIDE)
    [diagnostic] = gg201(await lsp.diagnostics(uri, lambda items: bool(items)))
    assert diagnostic.range.start == types.Position(
        line=HIDDEN_STATE_LINE, character=UNITS[encoding]
    )
    [fix] = diagnostic.data["fixes"]
    edits = [types.TextEdit(range=_range(e["range"]), new_text=e["newText"]) for e in fix["edits"]]
    fixed = apply(WIDE, edits, encoding)
    assert fixed.splitlines()[HIDDEN_STATE_LINE] == f"{PREFIX}h = h_next.detach()"


def _range(raw: dict) -> types.Range:  # type: ignore[type-arg]
    return types.Range(start=types.Position(**raw["start"]), end=types.Position(**raw["end"]))


async def test_utf16_by_default(raw_client: LanguageClient, tmp_path: Path) -> None:
    await _columns_in(raw_client, tmp_path, None)


async def test_utf8_when_offered(raw_client: LanguageClient, tmp_path: Path) -> None:
    await _columns_in(raw_client, tmp_path, ["utf-8", "utf-16"])


async def test_utf32_when_offered(raw_client: LanguageClient, tmp_path: Path) -> None:
    await _columns_in(raw_client, tmp_path, ["utf-32"])


async def test_initialization_options_ignore_a_rule(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    lsp, _ = await start_session(
        raw_client, "visual-studio-code", tmp_path, options={"gradguard": {"ignore": ["GG201"]}}
    )
    uri = lsp.open("train.py", HIDDEN_STATE)
    assert gg201(await lsp.diagnostics(uri)) == []


async def test_configuration_change_reapplies_severity(lsp: Session) -> None:
    uri = lsp.open("train.py", HIDDEN_STATE)
    await lsp.diagnostics(uri, lambda items: bool(gg201(list(items))))
    lsp.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"gradguard": {"severity": {"GG2": "hint"}, "debounceMs": 0}}
        )
    )
    hinted = lambda items: any(  # noqa: E731
        d.code == "GG201" and d.severity == types.DiagnosticSeverity.Hint for d in items
    )
    if lsp.pull:
        # A pull client asks again (after workspace/diagnostic/refresh, when it supports it).
        lsp.replace(uri, HIDDEN_STATE)
    assert gg201(await lsp.diagnostics(uri, hinted))


async def test_bad_settings_fall_back_with_one_warning(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    lsp, _ = await start_session(
        raw_client,
        "visual-studio-code",
        tmp_path,
        options={"severity": {"GG201": "loud"}, "scope": "everywhere", "select": 3},
    )
    uri = lsp.open("train.py", HIDDEN_STATE)
    [diagnostic] = gg201(await lsp.diagnostics(uri, lambda items: bool(items)))
    default = rule_by_code("GG201")
    assert default is not None
    assert diagnostic.severity == SEVERITY[default.severity.value]  # the rule's default
    [message] = raw_client.messages
    assert message.type == types.MessageType.Warning
    assert "severity" in message.message and "scope" in message.message


async def test_pyproject_settings_and_live_reload(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.gradguard]\nignore = ["GG201"]\n', encoding="utf-8")
    lsp, _ = await start_session(raw_client, "visual-studio-code", tmp_path)
    uri = lsp.open("train.py", HIDDEN_STATE)
    assert gg201(await lsp.diagnostics(uri)) == []
    # The registration request precedes the first diagnostics on the wire.
    assert any(
        r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in lsp.client.registrations
    ), "registers a **/pyproject.toml watcher"
    pyproject.write_text("[tool.gradguard]\nignore = []\n", encoding="utf-8")
    raw_client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=pyproject.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    assert gg201(await lsp.diagnostics(uri, lambda items: bool(items)))


async def test_editor_select_starts_a_fresh_selection_over_pyproject(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    # As `gradguard check --select ALL`: the editor's `select` replaces the project's
    # `select` and `ignore` (its `ignore` alone would extend the project's instead).
    (tmp_path / "pyproject.toml").write_text(
        '[tool.gradguard]\nignore = ["GG201"]\n', encoding="utf-8"
    )
    lsp, _ = await start_session(
        raw_client, "visual-studio-code", tmp_path, options={"select": ["ALL"]}
    )
    uri = lsp.open("train.py", HIDDEN_STATE)
    assert gg201(await lsp.diagnostics(uri, lambda items: bool(items)))


async def test_multi_root_folders_use_their_own_pyproject(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    quiet, loud = tmp_path / "quiet", tmp_path / "loud"
    for folder in (quiet, loud):
        folder.mkdir()
    (quiet / "pyproject.toml").write_text('[tool.gradguard]\nignore = ["GG"]\n', encoding="utf-8")
    (loud / "pyproject.toml").write_text(
        '[tool.gradguard.severity]\nGG201 = "error"\n', encoding="utf-8"
    )
    lsp, _ = await start_session(raw_client, "visual-studio-code", tmp_path)
    quiet_uri = lsp.open("quiet/train.py", HIDDEN_STATE)
    assert gg201(await lsp.diagnostics(quiet_uri)) == []
    loud_uri = lsp.open("loud/train.py", HIDDEN_STATE)
    [diagnostic] = gg201(await lsp.diagnostics(loud_uri, lambda items: bool(items)))
    assert diagnostic.severity == types.DiagnosticSeverity.Error


async def test_hover_on_noqa_code_shows_rule_docs(lsp: Session) -> None:
    text = HIDDEN_STATE.replace("    h = h_next\n", "    h = h_next  # noqa: GG201\n")
    uri = lsp.open("train.py", text)
    line = text.splitlines()[HIDDEN_STATE_LINE]
    hover = await lsp.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=HIDDEN_STATE_LINE, character=line.index("GG201") + 2),
        )
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert "GG201" in hover.contents.value and "hidden-state-not-detached" in hover.contents.value
    nothing = await lsp.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=HIDDEN_STATE_LINE, character=5),
        )
    )
    assert nothing is None


async def test_workspace_diagnostic_request_covers_closed_files(lsp: Session) -> None:
    (lsp.root / "pkg").mkdir()
    closed = lsp.root / "pkg" / "closed.py"
    closed.write_text(HIDDEN_STATE, encoding="utf-8")
    (lsp.root / ".venv").mkdir()
    (lsp.root / ".venv" / "ignored.py").write_text(HIDDEN_STATE, encoding="utf-8")
    report = await lsp.client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    by_uri = {item.uri: item for item in report.items}
    assert set(by_uri) == {closed.as_uri()}
    item = by_uri[closed.as_uri()]
    assert isinstance(item, types.WorkspaceFullDocumentDiagnosticReport)
    assert [d.code for d in item.items] == ["GG201"]
    again = await lsp.client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(
            previous_result_ids=[types.PreviousResultId(uri=closed.as_uri(), value=item.result_id)]
        )
    )
    assert isinstance(again.items[0], types.WorkspaceUnchangedDocumentDiagnosticReport)


async def test_workspace_scope_publishes_closed_files(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    closed = tmp_path / "closed.py"
    closed.write_text(HIDDEN_STATE, encoding="utf-8")
    lsp, _ = await start_session(
        raw_client, "visual-studio-code", tmp_path, options={"scope": "workspace"}
    )
    assert gg201(await lsp.pushed(closed.as_uri(), lambda items: bool(items)))


@pytest.mark.parametrize(
    "bad_uri",
    ["file:///tmp/gradguard%00folder", "file:///tmp/gradguard\ud800folder"],
    ids=["nul", "surrogate"],
)
async def test_an_unusable_workspace_folder_is_skipped(
    raw_client: LanguageClient, tmp_path: Path, bad_uri: str
) -> None:
    closed = tmp_path / "closed.py"
    closed.write_text(HIDDEN_STATE, encoding="utf-8")
    params = initialize_params("visual-studio-code", tmp_path)
    params.workspace_folders = [
        types.WorkspaceFolder(uri=bad_uri, name="bad"),
        *(params.workspace_folders or []),
    ]
    await raw_client.initialize_session(params)
    for _ in range(2):  # every request, not only the first
        report = await raw_client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[])
        )
        assert [item.uri for item in report.items] == [closed.as_uri()]
    raw_client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=bad_uri + "2", name="bad2")], removed=[]
            )
        )
    )
    report = await raw_client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    assert [item.uri for item in report.items] == [closed.as_uri()]
