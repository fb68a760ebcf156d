"""JSON-RPC by the book: invalid params are answered with -32602 (not dropped with an error
pop-up), and `exit` reports whether `shutdown` came first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .wire import assert_still_serving, frame, server_process

POSITION = {"line": 0, "character": 0}


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("textDocument/hover", {"textDocument": 5, "position": POSITION}),
        ("textDocument/hover", {"textDocument": {"uri": "file:///a.py"}}),
        ("textDocument/hover", {"textDocument": {"uri": "file:///a.py"}, "position": -1}),
        ("textDocument/codeAction", {"textDocument": {"uri": "file:///a.py"}}),
        ("codeAction/resolve", {"title": "x", "edit": 3}),
        ("workspace/diagnostic", {"previousResultIds": "none"}),
    ],
)
def test_a_request_with_invalid_params_is_answered_with_invalid_params(
    tmp_path: Path, method: str, params: Any
) -> None:
    with server_process(tmp_path) as pipe:
        seen: list[dict[str, Any]] = []
        ident = pipe.send(method, params, request=True)
        response = pipe.until(lambda m: seen.append(m) or m.get("id") == ident)
        assert response["error"]["code"] == -32602, response
        pop_ups = [m for m in seen if m.get("method") == "window/showMessage"]
        assert pop_ups == []
        assert_still_serving(pipe, tmp_path)


def test_a_request_that_is_not_json_rpc_2_is_answered_with_invalid_request(
    tmp_path: Path,
) -> None:
    with server_process(tmp_path) as pipe:
        body = {"id": 41, "method": "textDocument/hover", "params": {}}
        pipe.send_bytes(frame(json.dumps(body).encode()))
        response = pipe.until(lambda m: m.get("id") == 41)
        assert response["error"]["code"] == -32600, response
        assert_still_serving(pipe, tmp_path)


def test_a_notification_with_invalid_params_is_ignored_quietly(tmp_path: Path) -> None:
    with server_process(tmp_path) as pipe:
        pipe.send("textDocument/didOpen", {"textDocument": {"uri": 3}})
        seen: list[dict[str, Any]] = []
        ident = pipe.send("textDocument/hover", {"textDocument": 5}, request=True)
        pipe.until(lambda m: seen.append(m) or m.get("id") == ident)
        assert [m for m in seen if m.get("method") == "window/showMessage"] == []
        assert_still_serving(pipe, tmp_path)


def test_exit_without_shutdown_exits_with_1(tmp_path: Path) -> None:
    with server_process(tmp_path) as pipe:
        pipe.send("exit", None)
        assert pipe.process.wait(15) == 1


def test_exit_after_shutdown_exits_with_0(tmp_path: Path) -> None:
    with server_process(tmp_path) as pipe:
        assert pipe.request("shutdown", None)["result"] is None
        pipe.send("exit", None)
        assert pipe.process.wait(15) == 0
