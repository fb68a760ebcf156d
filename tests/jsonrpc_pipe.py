"""A minimal JSON-RPC (LSP base protocol) client over a server process's stdin/stdout, for
tests that need the server's process itself (its memory, its exit, an audit hook) or the raw
byte stream (malformed frames)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

Message = dict[str, Any]
# How long `receive` and `until` wait for the server before failing the test.
TIMEOUT = float(os.environ.get("JSONRPC_PIPE_TIMEOUT", "30"))


class JsonRpcPipe:
    """A minimal JSON-RPC client over the server's stdin/stdout.

    A daemon thread reads the server's frames into a queue, so a server that never answers
    fails the test after `TIMEOUT` seconds instead of hanging it.
    """

    def __init__(
        self,
        command: list[str],
        cwd: Path,
        env: dict[str, str] | None = None,
        stderr: Any = subprocess.DEVNULL,
    ) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=cwd,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        )
        self.next_id = 0
        self._received: queue.Queue[Message | None] = queue.Queue()
        threading.Thread(target=self._read_frames, daemon=True).start()

    def _read_frames(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                length = 0
                while True:
                    line = stdout.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        break
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                self._received.put(json.loads(stdout.read(length)))
        finally:
            self._received.put(None)  # the server closed its output

    def send_bytes(self, data: bytes) -> None:
        """Write raw bytes to the server's input (for malformed frames)."""
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, method: str, params: object, *, request: bool = False) -> int | None:
        message: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
        ident = None
        if request:
            self.next_id += 1
            ident = message["id"] = self.next_id
        body = json.dumps(message).encode()
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return ident

    def receive(self, timeout: float = TIMEOUT) -> Message:
        try:
            message = self._received.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the server sent nothing for {timeout} s") from None
        if message is None:
            self._received.put(None)  # stay closed for later calls
            raise AssertionError("the server closed its output")
        return message

    def until(self, predicate: Callable[[Message], bool], timeout: float = TIMEOUT) -> Message:
        while True:
            message = self.receive(timeout)
            if predicate(message):
                return message

    def request(self, method: str, params: object, timeout: float = TIMEOUT) -> Message:
        """Send a request and return its response (skipping other messages)."""
        ident = self.send(method, params, request=True)
        return self.until(lambda m: m.get("id") == ident and "method" not in m, timeout)

    def initialize(self, root: Path, **extra: object) -> None:
        ident = self.send(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": {},
                "initializationOptions": {"debounceMs": 0},
                **extra,
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

    def close(self) -> None:
        """Kill the server if it is still running."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
