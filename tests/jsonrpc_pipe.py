"""A minimal JSON-RPC (LSP base protocol) client over a server process's stdin/stdout, for
tests that need the server's process itself (its memory, its exit, an audit hook)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path


class JsonRpcPipe:
    """A minimal JSON-RPC client over the server's stdin/stdout."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        )
        self.next_id = 0

    def send(self, method: str, params: object, *, request: bool = False) -> int | None:
        message: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
        ident = None
        if request:
            self.next_id += 1
            ident = message["id"] = self.next_id
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return ident

    def receive(self) -> dict[str, object]:
        assert self.process.stdout is not None
        length = 0
        while True:
            line = self.process.stdout.readline()
            assert line, "the server closed its output"
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        message: dict[str, object] = json.loads(self.process.stdout.read(length))
        return message

    def until(self, predicate: object) -> dict[str, object]:
        while True:
            message = self.receive()
            if callable(predicate) and predicate(message):
                return message

    def initialize(self, root: Path) -> None:
        ident = self.send(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": {},
                "initializationOptions": {"debounceMs": 0},
            },
            request=True,
        )
        self.until(lambda m: m.get("id") == ident)
        self.send("initialized", {})

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(
            next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS"))
        )
