"""Helpers for tests that speak raw JSON-RPC to a server process: start one, and check that
it still serves normal requests after a bad input."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jsonrpc_pipe import JsonRpcPipe, Message

from .conftest import HIDDEN_STATE, HIDDEN_STATE_LINE

SERVER = [sys.executable, "-m", "gradguard", "lsp"]


@contextmanager
def server_process(root: Path, **initialize: Any) -> Iterator[JsonRpcPipe]:
    """An initialized server process in workspace `root`, killed when the test ends."""
    pipe = JsonRpcPipe(SERVER, root)
    try:
        pipe.initialize(root, **initialize)
        yield pipe
    finally:
        pipe.close()


def frame(body: bytes, length: int | str | None = None) -> bytes:
    """`body` framed with a Content-Length header (the true length unless given)."""
    declared = len(body) if length is None else length
    return b"Content-Length: %s\r\n\r\n" % str(declared).encode() + body


def assert_still_serving(pipe: JsonRpcPipe, root: Path, name: str = "alive.py") -> None:
    """The server answers a hover and analyses a newly opened document."""
    uri = (root / name).as_uri()
    text = HIDDEN_STATE.replace("    h = h_next\n", "    h = h_next  # noqa: GG201\n")
    pipe.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    )
    column = text.splitlines()[HIDDEN_STATE_LINE].index("GG201")
    hover = pipe.request(
        "textDocument/hover",
        {
            "textDocument": {"uri": uri},
            "position": {"line": HIDDEN_STATE_LINE, "character": column},
        },
    )
    assert "GG201" in hover["result"]["contents"]["value"], hover
    changed = HIDDEN_STATE  # the noqa comment removed: GG201 is reported
    pipe.send(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": changed}]},
    )
    pipe.until(lambda m: _publishes_gg201(m, uri, 2))


def _publishes_gg201(message: Message, uri: str, version: int) -> bool:
    params = message.get("params")
    return (
        message.get("method") == "textDocument/publishDiagnostics"
        and isinstance(params, dict)
        and params.get("uri") == uri
        and params.get("version") == version
        and any(d.get("code") == "GG201" for d in params["diagnostics"])
    )
