"""The server sees the whole project: editing one file re-publishes another's diagnostics.

Real server processes over JSON-RPC, on copies of the multi-file fixture projects of
`tests/workspace/projects` (a bug in `train.py` that only shows with a fact of another
file). The server is checked against `gradguard check` on the same project, after an edit
in the editor (`didChange`), after a change on disk (`didChangeWatchedFiles`), and while it
indexes a large workspace in the background (with and without `window/workDoneProgress`).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from jsonrpc_pipe import JsonRpcPipe, Message

from .wire import SERVER

PROJECTS = Path(__file__).resolve().parents[1] / "workspace" / "projects"
NO_GRAD = PROJECTS / "gg101_no_grad_helper"  # train.py calls a no_grad loss of lib/losses.py
HELPER = "lib/losses.py"
DECORATOR = "@torch.no_grad()\n"


def _copy(tmp_path: Path, variant: str = "buggy") -> Path:
    root = tmp_path / "project"
    shutil.copytree(NO_GRAD / variant, root)
    return root


def _start(root: Path, capabilities: dict[str, Any] | None = None) -> JsonRpcPipe:
    pipe = JsonRpcPipe(SERVER, root)
    pipe.initialize(root, capabilities=capabilities or {})
    return pipe


def _open(pipe: JsonRpcPipe, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    document = {
        "uri": uri,
        "languageId": "python",
        "version": 1,
        "text": path.read_text() if text is None else text,
    }
    pipe.send("textDocument/didOpen", {"textDocument": document})
    return uri


def _published(pipe: JsonRpcPipe, uri: str) -> list[str]:
    """The codes of the next diagnostics published for `uri`."""
    message = pipe.until(
        lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
    )
    return [d["code"] for d in message["params"]["diagnostics"]]


def _cli_codes(root: Path, name: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "gradguard", "check", "--no-cache", "--output-format", "json", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    findings = json.loads(done.stdout)
    return sorted(f["code"] for f in findings if Path(f["filename"]).as_posix().endswith(name))


def test_an_edit_of_the_helper_republishes_the_script(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    pipe = _start(root)
    try:
        train = _open(pipe, root / "train.py")
        codes = _published(pipe, train)
        assert "GG101" in codes
        assert sorted(codes) == _cli_codes(root, "train.py")  # the same facts as the CLI
        helper_path = root / HELPER
        helper = _open(pipe, helper_path)
        _published(pipe, helper)
        # Removing the decorator in the editor (not on disk) heals train.py.
        healed = helper_path.read_text().replace(DECORATOR, "")
        pipe.send(
            "textDocument/didChange",
            {
                "textDocument": {"uri": helper, "version": 2},
                "contentChanges": [{"text": healed}],
            },
        )
        assert "GG101" not in _published(pipe, train)
        # Putting it back makes the finding return.
        pipe.send(
            "textDocument/didChange",
            {
                "textDocument": {"uri": helper, "version": 3},
                "contentChanges": [{"text": helper_path.read_text()}],
            },
        )
        assert "GG101" in _published(pipe, train)
    finally:
        pipe.close()


def test_an_edit_that_keeps_the_summary_reanalyses_nothing_else(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    pipe = _start(root)
    try:
        train = _open(pipe, root / "train.py")
        assert "GG101" in _published(pipe, train)
        helper_path = root / HELPER
        helper = _open(pipe, helper_path)
        _published(pipe, helper)
        text = helper_path.read_text() + "# a comment typed at the end\n"
        text = text.replace("return F.mse_loss", "loss = F.mse_loss").replace(
            "(inputs), targets)\n", "(inputs), targets)\n    return loss\n"
        )  # the body changed, not what the function returns
        for version in (2, 3):
            text += "#"
            pipe.send(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": helper, "version": version},
                    "contentChanges": [{"text": text}],
                },
            )
            _published(pipe, helper)
        later = _drain(pipe, 1.0)
        assert not any(_is_publish(m, train) for m in later), later
        # A real change after them is seen: train.py is re-published.
        pipe.send(
            "textDocument/didChange",
            {
                "textDocument": {"uri": helper, "version": 4},
                "contentChanges": [{"text": text.replace(DECORATOR, "")}],
            },
        )
        assert "GG101" not in _published(pipe, train)
    finally:
        pipe.close()


def test_a_change_on_disk_republishes_the_files_that_import_it(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    pipe = _start(root)
    try:
        train = _open(pipe, root / "train.py")
        assert "GG101" in _published(pipe, train)
        helper = root / HELPER
        helper.write_text(helper.read_text().replace(DECORATOR, ""))
        changes = [{"uri": helper.as_uri(), "type": 2}]
        pipe.send("workspace/didChangeWatchedFiles", {"changes": changes})
        assert "GG101" not in _published(pipe, train)
        # A deleted helper is unknown again: silent, never an error.
        helper.unlink()
        pipe.send("workspace/didChangeWatchedFiles", {"changes": [{**changes[0], "type": 3}]})
        assert _published(pipe, train) == []
        # Created again with the bug: reported again.
        shutil.copy(NO_GRAD / "buggy" / HELPER, helper)
        pipe.send("workspace/didChangeWatchedFiles", {"changes": [{**changes[0], "type": 1}]})
        assert "GG101" in _published(pipe, train)
    finally:
        pipe.close()


def test_workspace_index_off_sees_one_file_at_a_time_until_turned_on(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    pipe = JsonRpcPipe(SERVER, root)
    try:
        pipe.initialize(
            root,
            capabilities={},
            initializationOptions={"debounceMs": 0, "workspaceIndex": False},
        )
        train = _open(pipe, root / "train.py")
        assert "GG101" not in _published(pipe, train)
        # Turned on while running: the open file is checked with the project at once.
        settings = {"gradguard": {"debounceMs": 0, "workspaceIndex": True}}
        pipe.send("workspace/didChangeConfiguration", {"settings": settings})
        assert "GG101" in _published(pipe, train)
    finally:
        pipe.close()


def _big_workspace(root: Path, files: int) -> None:
    """`files` small modules, each imported by the next, plus the fixture project."""
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for number in range(files):
        imports = f"from pkg.m{number - 1} import f{number - 1}\n" if number else ""
        body = f"import torch\n{imports}\ndef f{number}(x):\n    return torch.relu(x) * 2\n"
        (package / f"m{number}.py").write_text(body)


def _progress(messages: list[Message]) -> list[str]:
    return [
        m["params"]["value"]["kind"]
        for m in messages
        if m.get("method") == "$/progress" and m["params"]["token"] == "gradguard-index"
    ]


@pytest.mark.parametrize("shows_progress", [True, False])
def test_indexing_reports_progress_only_to_clients_that_show_it(
    tmp_path: Path, shows_progress: bool
) -> None:
    root = _copy(tmp_path)
    _big_workspace(root, 600)
    capabilities = {"window": {"workDoneProgress": True}} if shows_progress else {}
    pipe = _start(root, capabilities)
    seen: list[Message] = []
    try:
        if shows_progress:
            create = _until(pipe, seen, lambda m: m.get("method") == _CREATE)
            pipe.send_bytes(_response(create["id"]))
        # The server answers while it indexes: a hover, at once.
        train = _open(pipe, root / "train.py")
        started = time.monotonic()
        ident = pipe.send(
            "textDocument/hover",
            {"textDocument": {"uri": train}, "position": {"line": 0, "character": 0}},
            request=True,
        )
        answer = _until(pipe, seen, lambda m: m.get("id") == ident and "method" not in m)
        assert time.monotonic() - started < 2.0
        # Open-file diagnostics do not wait for the index either.
        published = _until(pipe, seen, lambda m: _is_publish(m, train))
        assert "GG101" in [d["code"] for d in published["params"]["diagnostics"]]
        if shows_progress:
            _until(pipe, seen, lambda m: _progress([m]) == ["end"])
        seen.extend(_drain(pipe, 1.0))
        started = time.monotonic()
        shutdown = pipe.request("shutdown", None)
        assert "result" in shutdown and time.monotonic() - started < 2.0
    finally:
        pipe.close()
    kinds = _progress(seen)
    if shows_progress:
        assert kinds[0] == "begin" and "report" in kinds and kinds[-1] == "end"
        ended = next(i for i, m in enumerate(seen) if _progress([m]) == ["end"])
        assert seen.index(answer) < ended  # answered while the index was being built
    else:
        assert kinds == []
        assert not any(m.get("method") == _CREATE for m in seen)


_CREATE = "window/workDoneProgress/create"


def _until(pipe: JsonRpcPipe, seen: list[Message], predicate: Any) -> Message:
    """The first message matching `predicate`; every message read is kept in `seen`."""
    while True:
        message = pipe.receive()
        seen.append(message)
        if predicate(message):
            return message


def _is_publish(message: Message, uri: str) -> bool:
    return (
        message.get("method") == "textDocument/publishDiagnostics"
        and message["params"]["uri"] == uri
    )


def _response(ident: int) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": ident, "result": None}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _drain(pipe: JsonRpcPipe, quiet: float = 0.3) -> list[Message]:
    """Every message until the server has been quiet for `quiet` seconds."""
    messages: list[Message] = []
    while True:
        try:
            messages.append(pipe.receive(quiet))
        except AssertionError:
            return messages


def _fixture_cases() -> list[Any]:
    """The multi-file fixture projects (`tests/workspace/projects.py`, not a package)."""
    spec = importlib.util.spec_from_file_location(
        "fixture_projects", PROJECTS.parent / "projects.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("fixture_projects", module)
    spec.loader.exec_module(module)
    return list(module.CASES)


@pytest.mark.parametrize("case", _fixture_cases(), ids=lambda c: c.name)
def test_every_fixture_project_is_caught_by_the_server(case: Any, tmp_path: Path) -> None:
    """The server reports each buggy project's finding in the file that fails, on the fact
    of the other file, and nothing in the fixed copy's file: as `gradguard check` does."""
    seen = {}
    for variant in ("buggy", "fixed"):
        root = tmp_path / variant
        shutil.copytree(case.folder(variant), root)
        pipe = _start(root)
        try:
            seen[variant] = _published(pipe, _open(pipe, root / case.reported))
        finally:
            pipe.close()
    assert case.code in seen["buggy"], seen
    assert case.code not in seen["fixed"], seen
