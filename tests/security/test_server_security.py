"""The language server, too, never runs workspace code, never touches the network and never
imports torch, even when asked for diagnostics of the whole workspace."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from jsonrpc_pipe import JsonRpcPipe

from .test_no_user_code_no_network import AUDIT_WRAPPER, _markers, workspace

__all__ = ["workspace"]  # the fixture, shared with the CLI's security tests


def test_the_server_runs_no_workspace_code_and_uses_no_network(workspace: Path) -> None:
    log = workspace.parent / "audit.jsonl"
    pipe = JsonRpcPipe(
        [sys.executable, "-c", AUDIT_WRAPPER, "lsp"], workspace, {"GG_AUDIT_LOG": str(log)}
    )
    try:
        ident = pipe.send(
            "initialize",
            {
                "processId": None,
                "rootUri": workspace.as_uri(),
                "capabilities": {},
                "initializationOptions": {"debounceMs": 0, "scope": "workspace"},
            },
            request=True,
        )
        pipe.until(lambda m: m.get("id") == ident)
        pipe.send("initialized", {})
        uri = (workspace / "train.py").as_uri()
        text = (workspace / "train.py").read_text(encoding="utf-8")
        pipe.send(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
        )
        published = pipe.until(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri  # type: ignore[index]
                and any(d.get("code") == "GG101" for d in m["params"]["diagnostics"])
            )  # type: ignore[index]
        )
        assert published
        done = pipe.send("shutdown", None, request=True)
        pipe.until(lambda m: m.get("id") == done)
        pipe.send("exit", None)
        pipe.process.wait(15)
    finally:
        if pipe.process.poll() is None:
            pipe.process.kill()
    assert _markers(workspace) == []
    events = [json.loads(line) for line in log.read_text().splitlines()]
    forbidden = [
        e
        for e in events
        if e["event"] != "open"
        and not (e["event"] == "subprocess.Popen" and "'check-ignore'" in e["args"])
    ]
    assert forbidden == []
