"""The JSON-RPC channel stays clean, and a crashing rule is logged while the others report."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from .conftest import HIDDEN_STATE

PLUGIN = Path(__file__).parent / "crashing_rule"


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def parse_frames(data: bytes) -> list[dict[str, Any]]:
    """Split stdout into frames; fail on anything that is not a well-formed frame."""
    messages: list[dict[str, Any]] = []
    while data:
        header, sep, rest = data.partition(b"\r\n\r\n")
        assert sep, f"bytes outside a frame: {data[:200]!r}"
        fields = dict(line.split(b": ", 1) for line in header.split(b"\r\n"))
        assert set(fields) <= {b"Content-Length", b"Content-Type"}, header
        length = int(fields[b"Content-Length"])
        body, data = rest[:length], rest[length:]
        assert len(body) == length
        message = json.loads(body)
        assert message["jsonrpc"] == "2.0"
        messages.append(message)
    return messages


def test_stdout_carries_only_json_rpc(tmp_path: Path) -> None:
    uri = (tmp_path / "train.py").as_uri()
    broken = HIDDEN_STATE.replace("    opt.step()\n", "    opt.step(\n")
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
                    "initializationOptions": {"debounceMs": 0}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                     "text": HIDDEN_STATE}}},
        {"jsonrpc": "2.0", "method": "textDocument/didChange",
         "params": {"textDocument": {"uri": uri, "version": 2},
                    "contentChanges": [{"text": broken}]}},
        {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
         "params": {"textDocument": {"uri": uri}, "position": {"line": 99, "character": 0}}},
        {"jsonrpc": "2.0", "id": 3, "method": "no/such/method", "params": {}},
    ]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "gradguard", "lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PYTHONPATH": str(PLUGIN), "PATH": "/usr/bin:/bin"},
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"".join(frame(r) for r in requests))
    process.stdin.flush()
    # Read until version 2's diagnostics are published and both requests answered (version
    # 1's run may be dropped as stale: the change arrives while it is being analysed).
    seen: list[dict[str, Any]] = []
    buffer = b""
    while not (
        any(m.get("params", {}).get("version") == 2 for m in seen if "method" in m)
        and {2, 3} <= {m.get("id") for m in seen}
    ):
        chunk = process.stdout.read1(65536)
        assert chunk, "server closed stdout early"
        buffer += chunk
        with contextlib.suppress(AssertionError, ValueError, KeyError):  # a frame still arriving
            seen = parse_frames(buffer)
    goodbye = frame({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}) + frame(
        {"jsonrpc": "2.0", "method": "exit"}
    )
    rest, stderr = process.communicate(goodbye, timeout=30)
    messages = parse_frames(buffer + rest)
    assert process.returncode == 0, stderr.decode()

    published = [
        m["params"] for m in messages if m.get("method") == "textDocument/publishDiagnostics"
    ]
    assert published and all(any(d["code"] == "GG201" for d in p["diagnostics"]) for p in published)
    logs = [m["params"]["message"] for m in messages if m.get("method") == "window/logMessage"]
    assert any("GG999" in line and "boom" in line for line in logs), logs
    assert b"a stray print from a rule" in stderr, "prints are diverted to stderr"
    [unknown] = [m for m in messages if m.get("id") == 3]
    assert unknown["error"]["code"] == -32601
