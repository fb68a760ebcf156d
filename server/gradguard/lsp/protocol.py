"""GradGuard's JSON-RPC protocol: pygls's `LanguageServerProtocol` made fit for a long session.

pygls 2.1 keeps the `Future` of every handler it runs in `_request_futures` under a fresh
id, and only requests (and cancellations) ever remove theirs: each notification
(`didChange`, `didOpen`...) and each step of pygls's generator handlers leaks one future,
about 2 KB per keystroke. `_execute_handler` here forgets each future once it is done.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)

MsgId = int | str


class GradGuardProtocol(LanguageServerProtocol):
    """The LSP protocol without pygls's leaked handler futures."""

    # -- futures ---------------------------------------------------------------------------

    def _execute_handler(
        self,
        msg_id: MsgId,
        handler: Callable[..., Any],
        callback: Callable[..., None],
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not serving (a unit test calling handlers): nothing leaks long
            return

        def forget(done: Any) -> None:
            # Later, on the loop: a future may finish while `shutdown` iterates the dict.
            with contextlib.suppress(RuntimeError):  # the loop closed: the process is ending
                loop.call_soon_threadsafe(self._forget_future, msg_id, done)

        future.add_done_callback(forget)

    def _forget_future(self, msg_id: MsgId, future: Any) -> None:
        """Drop a finished handler's future (a request's may already be gone: answered)."""
        if self._request_futures.get(msg_id) is future:
            del self._request_futures[msg_id]
