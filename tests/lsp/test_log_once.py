"""Each server log line reaches the editor once: a record sent as `window/logMessage` is not
also written to stderr, which editors show in the same output (VS Code's output channel)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from jsonrpc_pipe import JsonRpcPipe

from gradguard.lsp.logs import setup_logging
from gradguard.lsp.server import create_server

from .wire import SERVER


def test_each_log_line_reaches_the_editor_once(tmp_path: Path) -> None:
    stderr_path = tmp_path / "stderr.txt"
    with stderr_path.open("wb") as stderr:
        pipe = JsonRpcPipe(SERVER, tmp_path, stderr=stderr)
        try:
            pipe.initialize(tmp_path, clientInfo={"name": "log-test"})
            bad = {"settings": {"gradguard": {"select": 5}}}  # invalid: one warning, logged
            pipe.send("workspace/didChangeConfiguration", bad)
            logged = pipe.until(
                lambda m: (
                    m.get("method") == "window/logMessage"
                    and "ignoring invalid settings" in m["params"]["message"]
                )
            )
            assert logged["params"]["type"] == 2  # a warning
            shutdown = pipe.request("shutdown", None)
            assert "error" not in shutdown, shutdown
            pipe.send("exit", None)
            assert pipe.process.wait(30) == 0
        finally:
            pipe.close()
    written = stderr_path.read_text(encoding="utf-8")
    assert "ignoring invalid settings" not in written, written
    assert "serving log-test" not in written, written  # the initialize log went to the client


def test_without_a_connection_the_log_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    lsp_logger = logging.getLogger("gradguard.lsp")
    saved_lsp = lsp_logger.handlers[:]
    try:
        setup_logging(create_server())  # never started: no writer to send to
        logging.getLogger("gradguard.lsp.state").warning("nobody is listening")
    finally:
        root.handlers[:], lsp_logger.handlers[:] = saved[0], saved_lsp
        root.setLevel(saved[1])
    assert "nobody is listening" in capsys.readouterr().err
