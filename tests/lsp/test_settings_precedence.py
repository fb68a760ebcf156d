"""Editor settings over `pyproject.toml`, and bad values anywhere, over real JSON-RPC.

Editor `select`/`ignore` combine with the project's as `gradguard check`'s flags do; a bad
value in `pyproject.toml` drops only that key, with one warning however often the file is
analysed; a bad editor value is answered with one warning naming the key, and the rest of
the editor's settings still apply.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import HIDDEN_STATE, Session, start_session


def gg201(items: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in items if d.code == "GG201"]


def warnings(client: LanguageClient) -> list[str]:
    return [m.message for m in client.messages if m.type == types.MessageType.Warning]


def change_configuration(client: LanguageClient, settings: object) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"gradguard": settings})
    )


async def typed(lsp: Session, uri: str, times: int) -> list[types.Diagnostic]:
    """Edit the document `times` times (a comment each time) and return the last result."""
    items: list[types.Diagnostic] = []
    for keystroke in range(times):
        lsp.replace(uri, HIDDEN_STATE + f"# edit {keystroke}\n")
        items = await lsp.diagnostics(uri)
    return items


async def test_editor_ignore_extends_the_projects(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.gradguard]\nignore = ["GG201"]\n', encoding="utf-8"
    )
    lsp, _ = await start_session(
        raw_client, "visual-studio-code", tmp_path, options={"ignore": ["GG101"]}
    )
    uri = lsp.open("train.py", HIDDEN_STATE)
    # Before, the editor's list replaced the project's and GG201 came back.
    assert gg201(await lsp.diagnostics(uri)) == []
    change_configuration(raw_client, {"select": ["ALL"]})  # a fresh selection, as --select
    assert gg201(await lsp.diagnostics(uri, lambda items: bool(gg201(list(items)))))
    assert warnings(raw_client) == []


async def test_a_bad_pyproject_value_drops_only_that_key_with_one_warning(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[tool.gradguard]\nselect = 5\nignore = ["GG201"]\n'
        '[tool.gradguard.severity]\nGG2 = "loud"\n',
        encoding="utf-8",
    )
    lsp, _ = await start_session(raw_client, "neovim@v0.7", tmp_path)
    uri = lsp.open("train.py", HIDDEN_STATE)
    assert gg201(await lsp.diagnostics(uri)) == []  # `ignore` still applies
    assert gg201(await typed(lsp, uri, 3)) == []
    # Re-reading the file (it changed on disk) does not repeat the same warning either.
    raw_client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=pyproject.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    assert gg201(await typed(lsp, uri, 1)) == []
    [message] = warnings(raw_client)
    assert str(pyproject) in message
    assert "`select` must be a list of rule codes" in message
    assert "`severity.GG2` must be one of" in message
    assert "`ignore`" not in message  # the good key is not blamed


async def test_a_bad_editor_value_is_shown_and_the_rest_applies(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    lsp, _ = await start_session(raw_client, "visual-studio-code", tmp_path)
    uri = lsp.open("train.py", HIDDEN_STATE)
    [before] = gg201(await lsp.diagnostics(uri, lambda items: bool(items)))
    assert before.severity == types.DiagnosticSeverity.Error
    change_configuration(raw_client, {"ignore": 7, "severity": {"GG201": "hint"}})
    [after] = gg201(
        await lsp.diagnostics(
            uri, lambda items: any(d.severity == types.DiagnosticSeverity.Hint for d in items)
        )
    )
    assert after.severity == types.DiagnosticSeverity.Hint  # `severity` was kept
    [message] = warnings(raw_client)
    assert "`ignore` must be a list of rule codes, got 7" in message


async def test_settings_that_are_not_an_object_are_shown(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    lsp, _ = await start_session(raw_client, "visual-studio-code", tmp_path)
    uri = lsp.open("train.py", HIDDEN_STATE)
    assert gg201(await lsp.diagnostics(uri, lambda items: bool(items)))
    change_configuration(raw_client, "everything")
    await lsp.diagnostics(uri)  # the notification was handled before this request
    [message] = warnings(raw_client)
    assert "`gradguard` must be an object of settings, got 'everything'" in message
