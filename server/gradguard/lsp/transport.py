"""Running the server on a byte stream (stdio or TCP) with GradGuard's own reader loop.

pygls's loop is replaced for three reasons: its framing (see `gradguard.lsp.framing`), its
validation (see `GradGuardProtocol.receive`), and its exit: it swallows the `SystemExit`
that carries `exit`'s status, so `exit` without `shutdown` ended the process with 0
where the LSP spec wants 1. `run_stdio` returns that status.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import BinaryIO

from pygls.io_ import StdoutWriter

from gradguard.lsp.framing import MessageReader, ReadChunk
from gradguard.lsp.protocol import GradGuardProtocol

log = logging.getLogger(__name__)

CHUNK_BYTES = 64 * 1024
# Chunks read ahead of the event loop (bounded: a fast client waits, memory does not grow).
_READ_AHEAD = 16


async def serve(reader: MessageReader, protocol: GradGuardProtocol, stop: threading.Event) -> None:
    """Hand every message to the protocol until the stream ends or the server stops.

    No message can end the loop by raising: a handler's error is logged and the next
    message is read. Only `exit` (a `SystemExit`) and the end of the stream stop it.
    """
    while not stop.is_set():
        try:
            message = await reader.next_message()
        except EOFError:
            log.info("the client closed the connection")
            return
        try:
            protocol.receive(message)
        except BrokenPipeError:
            log.error("the connection to the client is lost")
            return
        except Exception:
            log.exception("could not handle a message")


def stdin_chunks(fd: int) -> ReadChunk:
    """Read file descriptor `fd` in a daemon thread.

    A blocked read must neither delay the process's exit (hence a daemon thread) nor hold
    the lock of a buffered stream at exit (hence `os.read`: Python aborts the process when
    a daemon thread holds `sys.stdin.buffer`'s lock during finalisation).
    """
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[bytes] = asyncio.Queue(_READ_AHEAD)

    def pump() -> None:
        while True:
            try:
                chunk = os.read(fd, CHUNK_BYTES)
            except OSError:  # closed underneath us
                chunk = b""
            try:
                asyncio.run_coroutine_threadsafe(chunks.put(chunk), loop).result()
            except RuntimeError:  # the loop is gone: the server is exiting
                return
            if not chunk:
                return

    threading.Thread(target=pump, name="gradguard-stdin", daemon=True).start()

    async def read() -> bytes:
        return await chunks.get()

    return read


def run_stdio(protocol: GradGuardProtocol, stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Serve over a pipe; returns the process exit status (`exit`'s, or 0 at end of input)."""
    stop = threading.Event()
    protocol.set_writer(StdoutWriter(stdout))

    async def main() -> None:
        await serve(MessageReader(stdin_chunks(stdin.fileno())), protocol, stop)

    try:
        asyncio.run(main())
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1
    except KeyboardInterrupt:
        return 1
    finally:
        stop.set()
    return 0


def run_tcp(protocol: GradGuardProtocol, host: str, port: int) -> int:
    """Serve one client at a time on `host:port` until `exit`."""
    stop = threading.Event()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        protocol.set_writer(writer)
        await serve(MessageReader(lambda: reader.read(CHUNK_BYTES)), protocol, stop)

    async def main() -> None:
        server = await asyncio.start_server(connection, host, port)
        log.info("GradGuard listening on %s:%d", host, port)
        async with server:
            await server.serve_forever()

    try:
        asyncio.run(main())
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1
    except KeyboardInterrupt:
        return 1
    finally:
        stop.set()
    return 0
