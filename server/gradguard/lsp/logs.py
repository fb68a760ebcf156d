"""Logging for the server: `gradguard.lsp` records to the client, the rest to stderr.

A record sent to the client as `window/logMessage` is not also written to stderr: editors
show both in one place, so each line appeared twice. Before the connection exists (and
after it is gone) everything goes to stderr.

stdout is the JSON-RPC channel, so no handler here ever writes to it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys

from lsprotocol import types
from pygls.lsp.server import LanguageServer

# Set on a log record once it went to the client, so stderr does not repeat it.
_SENT = "gradguard_sent_to_client"
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
                    setattr(record, _SENT, True)
                return
            if self._send(params):
                setattr(record, _SENT, True)
        except Exception:  # logging must never take the server down
            self.handleError(record)

    def _send(self, params: types.LogMessageParams) -> bool:
        """Send to the client; False when there is no connection (yet, or any more)."""
        if self.server.protocol.writer is None:
            return False
        self.server.window_log_message(params)
        return True


def _not_sent_to_client(record: logging.LogRecord) -> bool:
    """stderr's filter: a record the client was sent is not written again.

    Clients show the server's stderr in the same place as `window/logMessage` (VS Code's
    output channel, Neovim's lsp.log), so writing both showed every line twice.
    """
    return not getattr(record, _SENT, False)


def setup_logging(server: LanguageServer) -> None:
    """The client for `gradguard.lsp` records, stderr for the rest and for what the client
    was not sent (level from `GRADGUARD_LOG`)."""
    level = os.environ.get("GRADGUARD_LOG", "INFO").upper()
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    stderr.addFilter(_not_sent_to_client)
    root = logging.getLogger()
    root.handlers[:] = [stderr]
    root.setLevel(logging.WARNING)
    logging.getLogger("gradguard").setLevel(level if level in logging._nameToLevel else "INFO")
    client = ClientLogHandler(server)
    client.setFormatter(logging.Formatter("%(message)s"))
    logging.getLogger("gradguard.lsp").addHandler(client)
