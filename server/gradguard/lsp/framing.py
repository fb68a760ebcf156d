"""The LSP base protocol on a byte stream: `Content-Length` framed JSON, read defensively.

pygls's reader trusts the header: a wrong `Content-Length` leaves it reading each later
header as part of a body, for good; a huge one makes it allocate, or wait, for that many
bytes. `MessageReader` instead

* rejects a length above `MAX_CONTENT_LENGTH` (logged) without reading or allocating it;
* resynchronises on the next header when a body is not JSON (declared too short, or
  garbage) and as soon as a new header appears inside a body still being read (declared
  too long). Neither can be a real message: JSON cannot contain a raw CR LF inside a
  string, nor the word `Content-Length` outside one;
* keeps at most one body (and a bounded header) in memory while scanning.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

MAX_CONTENT_LENGTH = 64 * 2**20
# A header block (Content-Length plus a few other fields) never comes near this size.
MAX_HEADER_BYTES = 8 * 1024
# Longer numbers are absurd lengths; rejecting them by their digits avoids parsing huge ints.
_MAX_DIGITS = 12

_HEADER = re.compile(
    rb"Content-Length:[ \t]*(\d+)[ \t]*\r\n"  # the length...
    rb"(?:[A-Za-z0-9-]+:[^\r\n]{0,512}\r\n){0,8}"  # ...other fields (Content-Type)...
    rb"\r\n"  # ...and the blank line ending the header
)
# Header fields before Content-Length (Content-Type first): skipped without a warning.
_HEADER_FIELDS = re.compile(rb"(?:[A-Za-z0-9-]+:[^\r\n]*\r\n|\r\n)*")

ReadChunk = Callable[[], Awaitable[bytes]]


class MessageReader:
    """Decoded JSON messages from a stream of byte chunks (`read` returns b"" at the end)."""

    def __init__(self, read: ReadChunk, max_length: int = MAX_CONTENT_LENGTH) -> None:
        self._read = read
        self._max_length = max_length
        self._buffer = bytearray()
        self._skipped = 0  # bytes discarded since the last good header (for one log line)

    async def next_message(self) -> object:
        """The next well-framed JSON value; raises `EOFError` when the stream ends."""
        while True:
            header = await self._next_header()
            digits = header.group(1)
            length = int(digits) if len(digits) <= _MAX_DIGITS else None
            if length is None or length > self._max_length:
                log.error(
                    "rejected a message of Content-Length %s (the limit is %d bytes); "
                    "skipping to the next header",
                    digits[:40].decode(),
                    self._max_length,
                )
                del self._buffer[: header.end()]
                continue
            start = header.end()
            interrupted = await self._fill(start, length)
            if interrupted is not None:
                log.error(
                    "a new message began inside a body of declared Content-Length %d; "
                    "dropped the broken message and resynchronised",
                    length,
                )
                del self._buffer[:interrupted]
                continue
            body = bytes(self._buffer[start : start + length])
            try:
                message = json.loads(body)
            except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested too deep
                log.error(
                    "a body of Content-Length %d is not usable JSON (a wrong length?); "
                    "skipping to the next header",
                    length,
                )
                del self._buffer[:start]  # the body itself is scanned for the next header
                continue
            del self._buffer[: start + length]
            return message

    async def _next_header(self) -> re.Match[bytes]:
        """Discard bytes up to the next complete header and return it (at offset 0)."""
        while True:
            match = _HEADER.search(self._buffer)
            if match is not None:
                self._discard(match.start())
                if self._skipped:
                    log.warning("skipped %d bytes that were not a message", self._skipped)
                    self._skipped = 0
                found = _HEADER.match(self._buffer)
                assert found is not None
                return found
            # Keep only a tail that may still grow into a header.
            self._discard(max(0, len(self._buffer) - MAX_HEADER_BYTES))
            await self._more()

    def _discard(self, end: int) -> None:
        """Drop the first `end` bytes, counting them unless they are other header fields."""
        if end <= 0:
            return
        if end > MAX_HEADER_BYTES or _HEADER_FIELDS.fullmatch(self._buffer, 0, end) is None:
            self._skipped += end
        del self._buffer[:end]

    async def _fill(self, start: int, length: int) -> int | None:
        """Read until the body at `start` is complete, or a header begins inside it.

        Returns where that header begins, or `None` once the body is complete.
        """
        scanned = start
        while len(self._buffer) < start + length:
            match = _HEADER.search(self._buffer, max(start, scanned - MAX_HEADER_BYTES))
            if match is not None:
                return match.start()
            scanned = len(self._buffer)
            await self._more()
        return None

    async def _more(self) -> None:
        chunk = await self._read()
        if not chunk:
            raise EOFError
        self._buffer += chunk
