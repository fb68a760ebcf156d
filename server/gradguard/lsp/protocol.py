"""GradGuard's JSON-RPC protocol: pygls's `LanguageServerProtocol` made robust to what a
client (or an attacker on the pipe) may send, and to a long session.

* Every decoded message goes through `receive`: a request whose params do not fit the
  method's type is answered with JSON-RPC error -32602 (InvalidParams), as the JSON-RPC
  spec requires, instead of being dropped with an error pop-up; malformed notifications and
  responses are logged and skipped.
* pygls 2.1 keeps the `Future` of every handler it runs in `_request_futures` under a fresh
  id, and only requests (and cancellations) ever remove theirs: each notification
  (`didChange`, `didOpen`...) and each step of pygls's generator handlers leaks one future,
  about 2 KB per keystroke. `_execute_handler` here forgets each future once it is done.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Any

from cattrs import transform_error
from cattrs.errors import ClassValidationError
from lsprotocol.types import ResponseError
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)

MsgId = int | str


def _message_id(value: object) -> MsgId | None:
    """A usable JSON-RPC id (a string or an integer), else `None`."""
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        return value
    return None


def _problem(error: JsonRpcException) -> str:
    """A readable account of why a message did not fit its type."""
    cause = error.__cause__
    if isinstance(cause, ClassValidationError):
        return "; ".join(transform_error(cause))
    return str(cause or error)


class GradGuardProtocol(LanguageServerProtocol):
    """The LSP protocol with message validation answered by the book and no leaked futures."""

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

    # -- incoming messages -----------------------------------------------------------------

    def receive(self, data: object) -> None:
        """Validate one decoded JSON value and dispatch it to its handler."""
        if not isinstance(data, Mapping):
            log.warning("ignoring a JSON-RPC message that is not an object: %.200r", data)
            return
        method = data.get("method")
        has_id = "id" in data
        if data.get("jsonrpc") != self.VERSION or (
            method is not None and not isinstance(method, str)
        ):
            self._reject(data, JsonRpcInvalidRequest(message="Invalid Request: not JSON-RPC 2.0"))
            return
        try:
            message = self.structure_message(dict(data))
        except JsonRpcException as error:
            self._reject(data, error)
            return
        if method is None and has_id and _message_id(data.get("id")) is None:
            log.warning("ignoring a response with an invalid id: %.200r", data)
            return
        self.handle_message(message)

    def _reject(self, data: Mapping[str, Any], error: JsonRpcException) -> None:
        """Answer a request that cannot be handled; log anything else and skip it."""
        method = data.get("method")
        ident = _message_id(data.get("id"))
        detail = _problem(error)
        if isinstance(method, str) and "id" in data:
            log.warning("request %r (%.100s) rejected: %s", data.get("id"), method, detail)
            code = error.code
            if ident is None:
                code = JsonRpcInvalidRequest.CODE  # answered with a null id
            elif isinstance(error, JsonRpcInvalidParams):
                code = JsonRpcInvalidParams.CODE
            self._send_response(
                ident,  # type: ignore[arg-type]  # pygls types it MsgId; JSON-RPC allows null
                error=ResponseError(code=code, message=f"{error.message}: {detail}"),
            )
        elif isinstance(method, str):
            log.warning("notification %.100s ignored: %s", method, detail)
        elif ident is not None and (pending := self._request_futures.pop(ident, None)):
            # A malformed answer to one of our requests: fail the caller still waiting.
            log.warning("malformed response to request %r: %s", ident, detail)
            self._result_types.pop(ident, None)
            if not pending.done():
                pending.set_exception(error)
        else:
            log.warning("ignoring a malformed JSON-RPC message: %s", detail)
