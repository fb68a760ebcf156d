"""The LSP base protocol under malformed framing: a wrong, absurd or huge `Content-Length`
neither kills the server, nor blocks it, nor leaves it deaf to the messages that follow."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from .wire import assert_still_serving, frame, server_process

HOVER = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": "lost",
        "method": "textDocument/hover",
        "params": {
            "textDocument": {"uri": "file:///nowhere.py"},
            "position": {"line": 0, "character": 0},
        },
    }
).encode()


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(frame(HOVER, len(HOVER) - 7), id="too-short"),
        pytest.param(frame(HOVER, len(HOVER) + 40), id="too-long"),
        pytest.param(frame(HOVER, 0), id="zero"),
        pytest.param(frame(HOVER, "12x"), id="not-a-number"),
        pytest.param(frame(b"{not json" + b" " * 20), id="body-not-json"),
        pytest.param(b"garbage before any header\r\n" + frame(HOVER), id="garbage-line"),
        pytest.param(frame(b"[" * 100_000 + b"]" * 100_000), id="deeply-nested"),
        pytest.param(b"x" * 200_000 + b"Content-Length:" * 5_000 + b"\r\n", id="long-garbage"),
    ],
)
def test_a_wrong_content_length_does_not_desynchronise_the_stream(
    tmp_path: Path, bad: bytes
) -> None:
    with server_process(tmp_path) as pipe:
        pipe.send_bytes(bad)
        assert_still_serving(pipe, tmp_path)
        # and stays in sync for later messages too
        assert_still_serving(pipe, tmp_path, "again.py")


@pytest.mark.parametrize(
    "length",
    [
        pytest.param(10**23, id="1e23"),
        pytest.param(50 * 2**30, id="50GB"),
        pytest.param(4 * 2**30, id="4GB"),
        pytest.param(300 * 2**20, id="300MB"),
    ],
)
def test_an_absurd_content_length_is_rejected_without_allocating_or_blocking(
    tmp_path: Path, length: int
) -> None:
    with server_process(tmp_path) as pipe:
        rss = pipe.rss_kib()
        started = time.monotonic()
        pipe.send_bytes(frame(HOVER, length))
        assert_still_serving(pipe, tmp_path)
        assert time.monotonic() - started < 10
        assert pipe.process.poll() is None
        assert pipe.rss_kib() - rss < 64 * 1024, "no buffer of the declared size"


def test_a_body_split_across_writes_is_still_one_message(tmp_path: Path) -> None:
    with server_process(tmp_path) as pipe:
        uri = (tmp_path / "slow.py").as_uri()
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 99,
                "method": "textDocument/hover",
                "params": {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
            }
        ).encode()
        data = frame(body)
        for start in range(0, len(data), 7):
            pipe.send_bytes(data[start : start + 7])
            time.sleep(0.002)
        response = pipe.until(lambda m: m.get("id") == 99)
        assert response["result"] is None
