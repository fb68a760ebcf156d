"""The server's handlers are plain functions: called here directly, without a client.

A stand-in records what a handler asks of the server; `create_server` is checked to
register every handler for its LSP method.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from lsprotocol import types

from gradguard.lsp.handlers import documents, notebooks, settings
from gradguard.lsp.handlers.actions import uri_argument
from gradguard.lsp.server import create_server
from gradguard.lsp.state import GradGuardServer
from gradguard.lsp.versions import NotebookVersions


@dataclass
class RecordingServer:
    """The part of `GradGuardServer` the document handlers use, recording each call."""

    pull_mode: bool = False
    calls: list[tuple[str, Any]] = field(default_factory=list)
    notebook_versions: NotebookVersions = field(default_factory=NotebookVersions)

    def __getattr__(self, name: str) -> Any:
        def record(*args: Any, **kwargs: Any) -> None:
            self.calls.append((name, args[0] if args else kwargs or None))

        return record


def as_server(stand_in: RecordingServer) -> GradGuardServer:
    return cast(GradGuardServer, stand_in)


def test_closing_a_document_forgets_it_and_clears_pushed_diagnostics() -> None:
    uri = "file:///project/train.py"
    params = types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    pushed = RecordingServer(pull_mode=False)
    documents.did_close(as_server(pushed), params)
    assert pushed.calls == [("forget", uri), ("clear", [uri]), ("refresh_workspace_scope", None)]
    pulled = RecordingServer(pull_mode=True)  # a pulling client asks again by itself
    documents.did_close(as_server(pulled), params)
    assert pulled.calls == [("forget", uri), ("refresh_workspace_scope", None)]


def test_opening_a_notebook_clears_what_the_workspace_scope_pushed_for_its_file() -> None:
    uri = "file:///project/nb.ipynb"
    stand_in = RecordingServer()
    params = types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=uri, notebook_type="jupyter-notebook", version=1, cells=[]
        ),
        cell_text_documents=[],
    )
    notebooks.did_open(as_server(stand_in), params)
    assert stand_in.calls == [("opened_from_disk", uri), ("schedule", uri)]
    assert stand_in.notebook_versions.get(uri) is not None


def test_only_a_pyproject_change_reloads_settings() -> None:
    def changed(*names: str) -> list[tuple[str, Any]]:
        stand_in = RecordingServer()
        events = [
            types.FileEvent(uri=f"file:///p/{n}", type=types.FileChangeType.Changed) for n in names
        ]
        settings.did_change_watched_files(
            as_server(stand_in), types.DidChangeWatchedFilesParams(changes=events)
        )
        return stand_in.calls

    assert changed("setup.cfg", "notes.txt") == []
    train = types.FileEvent(uri="file:///p/train.py", type=types.FileChangeType.Changed)
    assert changed("setup.cfg", "train.py") == [("python_files_changed", [train])]
    assert changed("train.py", "sub/pyproject.toml") == [
        ("settings_changed", None),
        ("python_files_changed", [train]),
    ]


def test_the_fix_all_command_takes_the_uri_in_every_shape_clients_send() -> None:
    uri = "file:///p/a.py"
    assert uri_argument((uri,)) == uri
    assert uri_argument(([uri],)) == uri
    assert uri_argument(({"uri": uri},)) == uri
    assert uri_argument(()) is None
    assert uri_argument(({"path": uri},)) is None


def test_create_server_registers_every_handler() -> None:
    server = create_server()
    registered = set(server.protocol.fm.features)
    expected = {
        types.INITIALIZE,
        types.INITIALIZED,
        types.SHUTDOWN,
        types.TEXT_DOCUMENT_DID_OPEN,
        types.TEXT_DOCUMENT_DID_CHANGE,
        types.TEXT_DOCUMENT_DID_SAVE,
        types.TEXT_DOCUMENT_DID_CLOSE,
        types.NOTEBOOK_DOCUMENT_DID_OPEN,
        types.NOTEBOOK_DOCUMENT_DID_CHANGE,
        types.NOTEBOOK_DOCUMENT_DID_SAVE,
        types.NOTEBOOK_DOCUMENT_DID_CLOSE,
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.WORKSPACE_DIAGNOSTIC,
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CODE_ACTION_RESOLVE,
        types.TEXT_DOCUMENT_HOVER,
        types.WORKSPACE_DID_CHANGE_CONFIGURATION,
        types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS,
    }
    assert expected <= registered
    assert "gradguard.applyFixAll" in server.protocol.fm.commands
    server.executor.shutdown(wait=False)
