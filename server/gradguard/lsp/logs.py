"""Logging for the server: everything to stderr, warnings also to the client's output.

stdout is the JSON-RPC channel, so no handler here ever writes to it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys

from lsprotocol import types
from pygls.lsp.server import LanguageServer

_LEVELS = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
}


class ClientLogHandler(logging.Handler):
    """Forward GradGuard's own log records to the client as `window/logMessage`."""

    def __init__(self, server: LanguageServer) -> None:
        super().__init__(logging.INFO)
        self.server = server
        # pygls creates its loop inside `start_io`; it is captured on the first message
        # logged from the loop's own thread (the `initialize` handler logs one).
        self.loop: asyncio.AbstractEventLoop | None = None

    def emit(self, record: logging.LogRecord) -> None:
        """Send the record from the event loop's thread (handlers may run in workers)."""
        try:
            message = self.format(record)
            kind = _LEVELS.get(record.levelno, types.MessageType.Log)
            if record.levelno >= logging.ERROR:
                kind = types.MessageType.Error
            params = types.LogMessageParams(type=kind, message=message)
            try:
                self.loop = asyncio.get_running_loop()
            except RuntimeError:  # a worker thread: hand the message to the loop
                if self.loop is not None and not self.loop.is_closed():
                    self.loop.call_soon_threadsafe(self._send, params)
                return
            self._send(params)
        except Exception:  # logging must never take the server down
            self.handleError(record)

    def _send(self, params: types.LogMessageParams) -> None:
        if self.server.protocol.writer is not None:
            self.server.window_log_message(params)


def setup_logging(server: LanguageServer) -> None:
    """stderr for everything (level from `GRADGUARD_LOG`), the client for gradguard.lsp."""
    level = os.environ.get("GRADGUARD_LOG", "INFO").upper()
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [stderr]
    root.setLevel(logging.WARNING)
    logging.getLogger("gradguard").setLevel(level if level in logging._nameToLevel else "INFO")
    client = ClientLogHandler(server)
    client.setFormatter(logging.Formatter("%(message)s"))
    logging.getLogger("gradguard.lsp").addHandler(client)
