"""`gradguard lsp`: the language server over the engine shared with `gradguard check`.

The handlers live in `gradguard.lsp.handlers` (one module per concern) and only translate
between LSP and the engine; scheduling and caching live in `gradguard.lsp.state`, code
actions in `gradguard.lsp.actions`, the files and settings of a workspace in
`gradguard.workspace` (the CLI's pipeline).
"""

from __future__ import annotations

import os
import sys
from typing import BinaryIO

from gradguard.lsp.handlers import register
from gradguard.lsp.handlers.actions import APPLY_FIX_ALL
from gradguard.lsp.handlers.hover import rule_hover
from gradguard.lsp.logs import setup_logging
from gradguard.lsp.state import GradGuardServer
from gradguard.lsp.transport import run_stdio, run_tcp

__all__ = ["APPLY_FIX_ALL", "create_server", "rule_hover", "start"]


def create_server() -> GradGuardServer:
    """A fresh server with every GradGuard feature registered."""
    server = GradGuardServer()
    register(server)
    return server


def _protect_stdout() -> BinaryIO:
    """Keep fd 1 for JSON-RPC only: anything else that prints lands on stderr instead."""
    rpc = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return rpc


def start(tcp: str | None = None) -> int:
    """Run the language server on stdio, or on `HOST:PORT` when `tcp` is given.

    Returns the process exit status: 0 after `shutdown` then `exit` (or when the client
    goes away), 1 after `exit` without `shutdown`.
    """
    server = create_server()
    setup_logging(server)
    try:
        if tcp:
            host, _, port = tcp.rpartition(":")
            return run_tcp(server.protocol, host or "127.0.0.1", int(port))
        rpc_out = _protect_stdout()
        return run_stdio(server.protocol, sys.stdin.buffer, rpc_out)
    finally:
        server.executor.shutdown(wait=False, cancel_futures=True)
        server.project.stop()
        server.housekeeping.stop()
