"""Server stress, bounded and local: a burst of edits on a large file, many documents edited
in interleaved order, a close during analysis, a cancelled request, memory over a long
session, and a client that dies."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from jsonrpc_pipe import JsonRpcPipe
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import HIDDEN_STATE, HIDDEN_STATE_LINE, start_session

# A 5,000-line file: the hidden-state bug, then plain helper functions.
PADDING = "".join(f"def helper_{i}(x):\n    y = x + {i}\n    return y * 2\n\n" for i in range(1247))
LARGE = HIDDEN_STATE + "\n" + PADDING
BURST = 1_000
# The bound (seconds) within which the last result must arrive after the last edit is sent.
BURST_BOUND = 30.0


def _gg201_lines(items: list[types.Diagnostic]) -> list[int]:
    return [d.range.start.line for d in items if d.code == "GG201"]


def _edit(
    uri: str, version: int, line: int, character: int, text: str, length: int = 0
) -> types.DidChangeTextDocumentParams:
    start = types.Position(line=line, character=character)
    end = types.Position(line=line, character=character + length)
    return types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[
            types.TextDocumentContentChangePartial(
                range=types.Range(start=start, end=end), text=text
            )
        ],
    )


async def test_a_burst_of_edits_on_a_5000_line_file_ends_with_the_right_result(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    assert LARGE.count("\n") >= 5_000
    # The editor's default debounce: a burst of keystrokes is what it exists for.
    lsp, _ = await start_session(
        raw_client, "visual-studio-code", tmp_path, options={"debounceMs": 150}
    )
    uri = lsp.open("large.py", "# header\n" + LARGE)
    version = 1
    for index in range(BURST - 1):
        version += 1
        # Type and delete a character in the header comment: the findings do not move.
        if index % 2 == 0:
            raw_client.text_document_did_change(_edit(uri, version, 0, 8, "x"))
        else:
            raw_client.text_document_did_change(_edit(uri, version, 0, 8, "", 1))
    version += 1
    raw_client.text_document_did_change(_edit(uri, version, 0, 0, "\n"))  # moves everything down
    expected = HIDDEN_STATE_LINE + 2  # the header line and the inserted line

    loop = asyncio.get_running_loop()
    sent = loop.time()

    async def final() -> None:
        while _gg201_lines(list(raw_client.diagnostics.get(uri, []))) != [expected]:
            raw_client.arrived.clear()
            await raw_client.arrived.wait()

    await asyncio.wait_for(final(), BURST_BOUND)
    print(f"last result {loop.time() - sent:.2f} s after the last of {BURST} edits")


async def test_fifty_documents_edited_in_interleaved_order(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    lsp, _ = await start_session(raw_client, "visual-studio-code", tmp_path)
    fixed = HIDDEN_STATE.replace("h = h_next\n", "h = h_next.detach()\n")
    uris = [lsp.open(f"doc{i}.py", HIDDEN_STATE) for i in range(50)]
    for round_ in range(3):
        for index, uri in enumerate(uris):
            buggy = (index + round_) % 2 == 0
            lsp.replace(uri, HIDDEN_STATE if buggy else fixed)
    # After round 2, documents with an even index + 2 are buggy: those with an even index.
    for index, uri in enumerate(uris):
        want_bug = index % 2 == 0
        items = await lsp.pushed(uri, lambda i, want=want_bug: bool(_gg201_lines(list(i))) == want)
        assert bool(_gg201_lines(items)) == want_bug


async def test_closing_a_document_during_its_analysis_clears_it(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    lsp, _ = await start_session(raw_client, "visual-studio-code", tmp_path)
    uri = lsp.open("closing.py", LARGE)
    raw_client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert await lsp.pushed(uri, lambda items: not items) == []
    # A later document analysed from start to finish: by then the closed one's run is over.
    other = lsp.open("other.py", LARGE)
    await lsp.pushed(other, lambda items: bool(_gg201_lines(list(items))))
    assert not raw_client.published[uri][-1]


async def test_a_cancelled_request_leaves_the_server_responsive(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    lsp, _ = await start_session(raw_client, "visual-studio-code", tmp_path)
    uri = lsp.open("train.py", HIDDEN_STATE)
    [diagnostic] = [d for d in await lsp.pushed(uri, lambda i: bool(i)) if d.code == "GG201"]
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic]),
    )
    pending = raw_client.protocol.send_request_async(
        types.TEXT_DOCUMENT_CODE_ACTION, params, msg_id="cancel-me"
    )
    raw_client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="cancel-me"))
    try:
        await asyncio.wait_for(pending, 10)
    except Exception as exc:  # cancelled: a JSON-RPC error, which is the point
        assert "cancel" in str(exc).lower() or type(exc).__name__ in {"CancelledError"}
    actions = await asyncio.wait_for(raw_client.text_document_code_action_async(params), 10)
    assert actions, "the server still answers after a cancellation"


# -- raw process tests: memory over a session, and a client that dies --------------------------


def _published_version(uri: str, version: int) -> object:
    def match(message: dict[str, object]) -> bool:
        params = message.get("params")
        return (
            message.get("method") == "textDocument/publishDiagnostics"
            and isinstance(params, dict)
            and params.get("uri") == uri
            and params.get("version") == version
        )

    return match


def test_memory_stays_bounded_over_a_long_session(tmp_path: Path) -> None:
    pipe = JsonRpcPipe([sys.executable, "-m", "gradguard", "lsp"], tmp_path)
    try:
        pipe.initialize(tmp_path)
        text = HIDDEN_STATE + "\n" + PADDING[: len(PADDING) * 2 // 5]  # about 2,000 lines
        uri = (tmp_path / "session.py").as_uri()

        def cycle(round_: int) -> None:
            pipe.send(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
            )
            for version in range(2, 6):
                changed = text + f"\n# edit {round_}.{version}\n"
                pipe.send(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": changed}],
                    },
                )
            pipe.until(_published_version(uri, 5))
            pipe.send("textDocument/didClose", {"textDocument": {"uri": uri}})

        for round_ in range(5):  # warm up: caches, imports, the thread pool
            cycle(round_)
        before = pipe.rss_kib()
        for round_ in range(5, 65):
            cycle(round_)
        after = pipe.rss_kib()
        print(f"server RSS {before / 1024:.1f} MiB before, {after / 1024:.1f} MiB after 60 cycles")
        # 60 open/edit/close cycles of a 2,000-line file may not leak: allow 20 MiB of noise.
        assert after - before < 20 * 1024, (before, after)
    finally:
        pipe.process.kill()
        pipe.process.wait(10)


# 10,000 keystrokes: a leak of 1 KiB per notification would show as 10 MiB.
KEYSTROKES = 10_000
KEYSTROKE_GROWTH_BOUND_KIB = 8 * 1024


def test_memory_stays_flat_over_ten_thousand_keystrokes(tmp_path: Path) -> None:
    """pygls 2.1 kept one future per notification (about 2 KB a keystroke) for good."""
    pipe = JsonRpcPipe([sys.executable, "-m", "gradguard", "lsp"], tmp_path)
    try:
        # A long debounce: every keystroke only cancels the previous run, none analyses.
        pipe.initialize(tmp_path, initializationOptions={"debounceMs": 600_000})
        uri = (tmp_path / "typing.py").as_uri()
        pipe.send(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "x = 1\n"}},
        )
        version = 1

        def type_and_delete(count: int) -> None:
            nonlocal version
            for index in range(count):
                version += 1
                end = 5 + index % 2  # type "2" after "x = 1", then delete it
                change = {
                    "range": {
                        "start": {"line": 0, "character": 5},
                        "end": {"line": 0, "character": end},
                    },
                    "text": "" if index % 2 else "2",
                }
                pipe.send(
                    "textDocument/didChange",
                    {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
                )
            # A request answered after every notification sent before it.
            pipe.request(
                "textDocument/hover",
                {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
            )

        type_and_delete(1_000)  # warm up
        before = pipe.rss_kib()
        type_and_delete(KEYSTROKES)
        after = pipe.rss_kib()
        print(
            f"server RSS {before / 1024:.1f} MiB before, {after / 1024:.1f} MiB after "
            f"{KEYSTROKES} keystrokes"
        )
        assert after - before < KEYSTROKE_GROWTH_BOUND_KIB, (before, after)
    finally:
        pipe.close()


def test_the_server_exits_when_its_client_dies(tmp_path: Path) -> None:
    pipe = JsonRpcPipe([sys.executable, "-m", "gradguard", "lsp"], tmp_path)
    pipe.initialize(tmp_path)
    assert pipe.process.stdin is not None
    pipe.process.stdin.close()  # the editor is gone: its end of the pipe closes
    try:
        code = pipe.process.wait(timeout=15)
    finally:
        if pipe.process.poll() is None:
            pipe.process.kill()
    assert code is not None
