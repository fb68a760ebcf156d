"""pytest-lsp fixtures: `gradguard lsp` over a real pipe, driven with real clients' capabilities."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
from sample_programs import HIDDEN_STATE as HIDDEN_STATE
from sample_programs import HIDDEN_STATE_LINE as HIDDEN_STATE_LINE

SERVER = [sys.executable, "-m", "gradguard", "lsp"]
TIMEOUT = 20.0
# Debian's Neovim 0.7 pushes diagnostics; Neovim 0.11 ("neovim", the latest set) pulls them.
CLIENTS = ["visual-studio-code", "neovim@v0.7", "neovim"]


@dataclass
class Session:
    """A started client and the documents it has open."""

    client: GradGuardTestClient
    spec: str
    root: Path
    version: dict[str, int] = field(default_factory=dict)
    # How many of each URI's received publishDiagnostics the test has read.
    consumed: dict[str, int] = field(default_factory=dict)

    @property
    def pull(self) -> bool:
        """True when this client pulls diagnostics instead of receiving them."""
        caps = self.client.capabilities
        return (
            caps is not None
            and caps.text_document is not None
            and (caps.text_document.diagnostic is not None)
        )

    def uri(self, name: str) -> str:
        """A `file:` URI inside the session's workspace folder."""
        return (self.root / name).as_uri()

    def open(self, name: str, text: str) -> str:
        """didOpen a Python document (the file is also written to disk)."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        self.version[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )
        return uri

    def replace(self, uri: str, text: str) -> None:
        """didChange: replace the whole text (a new version)."""
        self.version[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.version[uri]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def diagnostics(
        self,
        uri: str,
        until: Callable[[Sequence[types.Diagnostic]], bool] = lambda _: True,
    ) -> list[types.Diagnostic]:
        """The document's diagnostics: the next push that satisfies `until`, or a pull."""
        if self.pull:
            report = await asyncio.wait_for(
                self.client.text_document_diagnostic_async(
                    types.DocumentDiagnosticParams(
                        text_document=types.TextDocumentIdentifier(uri=uri)
                    )
                ),
                TIMEOUT,
            )
            assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
            assert until(report.items), report.items
            return list(report.items)
        return await self.pushed(uri, until)

    async def pushed(
        self,
        uri: str,
        until: Callable[[Sequence[types.Diagnostic]], bool] = lambda _: True,
    ) -> list[types.Diagnostic]:
        """The next publishDiagnostics for `uri` (after those already consumed) meeting `until`."""

        async def wait() -> list[types.Diagnostic]:
            while True:
                received = self.client.published.setdefault(uri, [])
                while self.consumed.get(uri, 0) < len(received):
                    items = received[self.consumed.get(uri, 0)]
                    self.consumed[uri] = self.consumed.get(uri, 0) + 1
                    if until(items):
                        return list(items)
                self.client.arrived.clear()
                await self.client.arrived.wait()

        return await asyncio.wait_for(wait(), TIMEOUT)


def initialize_params(
    spec: str,
    root: Path,
    options: dict[str, Any] | None = None,
    encodings: list[str] | None = None,
    notebooks: bool = False,
) -> types.InitializeParams:
    """Initialize params with a real client's capabilities (optionally adjusted)."""
    capabilities = client_capabilities(spec)
    if encodings is not None:
        capabilities.general = types.GeneralClientCapabilities(position_encodings=encodings)
    if notebooks:
        capabilities.notebook_document = types.NotebookDocumentClientCapabilities(
            synchronization=types.NotebookDocumentSyncClientCapabilities()
        )
    return types.InitializeParams(
        capabilities=capabilities,
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        initialization_options={"debounceMs": 0, **(options or {})},
    )


class GradGuardTestClient(LanguageClient):
    """pytest-lsp's client, also recording every publish, applyEdit and registration."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: dict[str, list[Sequence[types.Diagnostic]]] = {}
        self.arrived = asyncio.Event()
        self.applied_edits: list[types.ApplyWorkspaceEditParams] = []
        self.registrations: list[types.Registration] = []


def make_client() -> GradGuardTestClient:
    """The test client with pytest-lsp's default handlers plus recording ones."""
    client = GradGuardTestClient(converter_factory=default_converter)

    def publish(client: GradGuardTestClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.published.setdefault(params.uri, []).append(params.diagnostics)
        client.arrived.set()

    def apply_edit(
        client: GradGuardTestClient, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        client.applied_edits.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    def register(client: GradGuardTestClient, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    features = {
        **DEFAULT_CLIENT_FEATURES,
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
        types.WORKSPACE_APPLY_EDIT: apply_edit,
        types.CLIENT_REGISTER_CAPABILITY: register,
    }
    register_lsp_features(client, features)
    return client


CONFIG = ClientServerConfig(server_command=SERVER, client_factory=make_client)


async def start_session(
    client: LanguageClient, spec: str, root: Path, **kwargs: Any
) -> tuple[Session, types.InitializeResult]:
    """Initialize `client` as the given real client would."""
    assert isinstance(client, GradGuardTestClient)
    session = Session(client, spec, root)
    result = await client.initialize_session(initialize_params(spec, root, **kwargs))
    return session, result


@pytest_lsp.fixture(config=CONFIG, params=CLIENTS)
async def client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[None]:
    """A server initialized by each real client capability set, in a fresh workspace."""
    session, _ = await start_session(lsp_client, request.param, tmp_path)
    lsp_client.gradguard_session = session  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def lsp(client: LanguageClient) -> Session:
    """The session of the `client` fixture."""
    session: Session = client.gradguard_session  # type: ignore[attr-defined]
    return session


@pytest_lsp.fixture(config=CONFIG)
async def raw_client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    """A started but not yet initialized client (tests initialize it themselves)."""
    yield
    await lsp_client.shutdown_session()
