"""The project's facts everywhere the editor shows findings: closed files under the
workspace scope, code actions, and notebooks.

Real server processes over JSON-RPC on copies of the multi-file fixture projects of
`tests/workspace/projects` (a finding in one file that rests on a fact of another):

* a closed file whose diagnostics the workspace scope reported is reported again when a
  file it imports changes, pushed (`publishDiagnostics`) or pulled (the server asks for a
  `workspace/diagnostic/refresh` and the next pull has the new report);
* the quick fix and the fix-all of such a finding are offered, and applying them heals it;
* a notebook imports the project's files as a Python file does.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from jsonrpc_pipe import JsonRpcPipe, Message

from .wire import SERVER

PROJECTS = Path(__file__).resolve().parents[1] / "workspace" / "projects"
NO_GRAD = PROJECTS / "gg101_no_grad_helper"  # train.py calls a no_grad loss of lib/losses.py
RNN = PROJECTS / "gg201_rnn_state"  # train.py carries the state of src/seqmodels/rnn.py's LSTM
NOTEBOOK = PROJECTS / "notebook_gru_state"  # train.ipynb carries the state of model.py's GRU
HELPER = "lib/losses.py"
DECORATOR = "@torch.no_grad()\n"
WORKSPACE_SCOPE = {"debounceMs": 0, "scope": "workspace"}
PULLS = {
    "textDocument": {"diagnostic": {"dynamicRegistration": False}},
    "workspace": {"diagnostics": {"refreshSupport": True}},
}


def _copy(source: Path, tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(source, root)
    return root


def _start(root: Path, options: dict[str, Any], capabilities: dict[str, Any]) -> JsonRpcPipe:
    pipe = JsonRpcPipe(SERVER, root)
    pipe.initialize(root, capabilities=capabilities, initializationOptions=options)
    return pipe


def _open(pipe: JsonRpcPipe, path: Path) -> str:
    uri = path.as_uri()
    document = {"uri": uri, "languageId": "python", "version": 1, "text": path.read_text()}
    pipe.send("textDocument/didOpen", {"textDocument": document})
    return uri


def _change(pipe: JsonRpcPipe, uri: str, version: int, text: str) -> None:
    pipe.send(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
    )


def _published(pipe: JsonRpcPipe, uri: str) -> Message:
    """The next `publishDiagnostics` for `uri` (its params)."""
    message = pipe.until(
        lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
    )
    params: Message = message["params"]
    return params


def _codes(params: Message) -> list[str]:
    """The codes of a published (`diagnostics`) or pulled (`items`) report."""
    return [d["code"] for d in params.get("diagnostics", params.get("items"))]


# -- closed files under the workspace scope -----------------------------------------------------


def test_a_pushed_closed_file_is_reported_again_when_an_open_helper_changes(
    tmp_path: Path,
) -> None:
    root = _copy(NO_GRAD / "buggy", tmp_path)
    pipe = _start(root, WORKSPACE_SCOPE, {})
    try:
        train = (root / "train.py").as_uri()
        assert "GG101" in _codes(_published(pipe, train))  # closed: pushed from disk
        helper_path = root / HELPER
        helper = _open(pipe, helper_path)
        healed = helper_path.read_text().replace(DECORATOR, "")
        _change(pipe, helper, 2, healed)  # in the editor only: the disk still has the bug
        assert "GG101" not in _codes(_published(pipe, train))
        _change(pipe, helper, 3, helper_path.read_text())
        assert "GG101" in _codes(_published(pipe, train))
    finally:
        pipe.close()


def test_a_change_on_disk_reports_the_closed_file_and_its_importers_again(
    tmp_path: Path,
) -> None:
    root = _copy(NO_GRAD / "buggy", tmp_path)
    pipe = _start(root, WORKSPACE_SCOPE, {})
    try:
        train = (root / "train.py").as_uri()
        helper = root / HELPER
        assert "GG101" in _codes(_published(pipe, train))
        helper.write_text(helper.read_text().replace(DECORATOR, ""))
        _changed_on_disk(pipe, helper, 2)
        both = _next_publishes(pipe, {train, helper.as_uri()})
        assert "GG101" not in _codes(both[train])
        assert _codes(both[helper.as_uri()]) == []
        # The helper gains a finding of its own: the closed file itself is reported again.
        helper.write_text(helper.read_text() + OWN_FINDING)
        _changed_on_disk(pipe, helper, 2)
        assert _codes(_published(pipe, helper.as_uri())) == ["GG101"]
        # Deleted: its pushed diagnostics are cleared; train.py's import is unknown (silent).
        helper.unlink()
        _changed_on_disk(pipe, helper, 3)
        both = _next_publishes(pipe, {train, helper.as_uri()})
        assert _codes(both[helper.as_uri()]) == [] and _codes(both[train]) == []
    finally:
        pipe.close()


OWN_FINDING = """

def fit(inputs):
    layer = torch.nn.Linear(3, 1)
    with torch.no_grad():
        loss = layer(inputs).sum()
    loss.backward()
"""


def _changed_on_disk(pipe: JsonRpcPipe, path: Path, kind: int) -> None:
    changes = [{"uri": path.as_uri(), "type": kind}]
    pipe.send("workspace/didChangeWatchedFiles", {"changes": changes})


def _next_publishes(pipe: JsonRpcPipe, uris: set[str]) -> dict[str, Message]:
    """The next `publishDiagnostics` of each of `uris`, in whatever order they come."""
    found: dict[str, Message] = {}
    while len(found) < len(uris):
        message = pipe.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        uri = message["params"]["uri"]
        if uri in uris and uri not in found:
            found[uri] = message["params"]
    return found


def test_a_pulling_client_is_asked_to_pull_again_and_gets_the_new_report(
    tmp_path: Path,
) -> None:
    root = _copy(NO_GRAD / "buggy", tmp_path)
    pipe = _start(root, {"debounceMs": 0}, PULLS)
    try:
        train = (root / "train.py").as_uri()
        first = _pulled(pipe, {})
        assert "GG101" in _codes(first[train])
        helper_path = root / HELPER
        helper = _open(pipe, helper_path)
        _change(pipe, helper, 2, helper_path.read_text().replace(DECORATOR, ""))
        refresh = pipe.until(lambda m: m.get("method") == "workspace/diagnostic/refresh")
        pipe.send_bytes(_response(refresh["id"]))
        previous = {uri: report["resultId"] for uri, report in first.items()}
        second = _pulled(pipe, previous)
        assert second[train]["kind"] == "full"  # not "unchanged": the facts changed
        assert "GG101" not in _codes(second[train])
    finally:
        pipe.close()


def _pulled(pipe: JsonRpcPipe, previous: dict[str, str]) -> dict[str, Message]:
    """One `workspace/diagnostic` pull: the report per URI."""
    ids = [{"uri": uri, "value": value} for uri, value in previous.items()]
    answer = pipe.request("workspace/diagnostic", {"previousResultIds": ids})
    return {report["uri"]: report for report in answer["result"]["items"]}


def _response(ident: int) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": ident, "result": None}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


# -- code actions --------------------------------------------------------------------------------


def test_the_quick_fix_and_fix_all_of_a_finding_resting_on_another_file(tmp_path: Path) -> None:
    root = _copy(RNN / "buggy", tmp_path)
    pipe = _start(root, {"debounceMs": 0}, {})
    try:
        path = root / "train.py"
        text = path.read_text()
        train = _open(pipe, path)
        found = [d for d in _published(pipe, train)["diagnostics"] if d["code"] == "GG201"]
        assert found
        quick = _actions(pipe, train, found[0]["range"], [found[0]], None)
        fix = _titled(quick, "GradGuard (GG201): Detach the hidden state")
        assert fix["kind"] == "quickfix" and fix["isPreferred"]
        fixed = _apply(text, fix["edit"]["changes"][train])
        fix_all = _titled(
            _actions(pipe, train, found[0]["range"], [], ["source.fixAll"]),
            "GradGuard: Fix all auto-fixable problems",
        )
        assert _apply(text, fix_all["edit"]["changes"][train]) == fixed
        # The edit is valid: the server re-checks the fixed text and the finding is gone.
        _change(pipe, train, 2, fixed)
        after = _published(pipe, train)
        assert after["version"] == 2 and _codes(after) == []
    finally:
        pipe.close()


def _actions(
    pipe: JsonRpcPipe,
    uri: str,
    rng: Message,
    diagnostics: list[Message],
    only: list[str] | None,
) -> list[Message]:
    context: Message = {"diagnostics": diagnostics}
    if only is not None:
        context["only"] = only
    answer = pipe.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": rng, "context": context},
    )
    actions: list[Message] = answer["result"] or []
    return actions


def _titled(actions: list[Message], title: str) -> Message:
    matches = [a for a in actions if a["title"] == title]
    assert matches, [a["title"] for a in actions]
    return matches[0]


def _apply(text: str, edits: list[Message]) -> str:
    """Apply LSP edits (ASCII text: UTF-16 units are characters), last first."""
    lines = text.splitlines(keepends=True)

    def offset(position: Message) -> int:
        return sum(len(line) for line in lines[: position["line"]]) + position["character"]

    spans = sorted(
        ((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


# -- notebooks -----------------------------------------------------------------------------------


def _open_notebook(pipe: JsonRpcPipe, path: Path) -> list[str]:
    """didOpen the notebook at `path` with its cells, as VS Code does; the cells' URIs."""
    cells = json.loads(path.read_text())["cells"]
    uris = [f"vscode-notebook-cell:{path}#W{index}sZmlsZQ%3D%3D" for index in range(len(cells))]
    pipe.send(
        "notebookDocument/didOpen",
        {
            "notebookDocument": {
                "uri": path.as_uri(),
                "notebookType": "jupyter-notebook",
                "version": 1,
                "cells": [
                    {"kind": 2 if cell["cell_type"] == "code" else 1, "document": uri}
                    for uri, cell in zip(uris, cells, strict=True)
                ],
            },
            "cellTextDocuments": [
                {
                    "uri": uri,
                    "languageId": "python" if cell["cell_type"] == "code" else "markdown",
                    "version": 1,
                    "text": "".join(cell["source"]),
                }
                for uri, cell in zip(uris, cells, strict=True)
            ],
        },
    )
    return uris


def test_a_notebook_sees_the_project_and_follows_its_edits(tmp_path: Path) -> None:
    root = _copy(NOTEBOOK / "buggy", tmp_path)
    pipe = _start(root, {"debounceMs": 0}, {})
    try:
        loop_cell = _open_notebook(pipe, root / "train.ipynb")[3]
        published = _published(pipe, loop_cell)
        assert _codes(published) == ["GG201"]
        assert published["diagnostics"][0]["range"]["start"]["line"] == 4  # in its cell
        # model.py edited so that forward() returns a detached state: the notebook heals.
        model_path = root / "model.py"
        model = _open(pipe, model_path)
        detached = model_path.read_text().replace(
            "return self.head(out), hidden", "return self.head(out), hidden.detach()"
        )
        _change(pipe, model, 2, detached)
        assert _codes(_published(pipe, loop_cell)) == []
    finally:
        pipe.close()


def test_the_fixed_notebook_is_silent(tmp_path: Path) -> None:
    root = _copy(NOTEBOOK / "fixed", tmp_path)
    pipe = _start(root, {"debounceMs": 0}, {})
    try:
        loop_cell = _open_notebook(pipe, root / "train.ipynb")[3]
        assert _codes(_published(pipe, loop_cell)) == []
    finally:
        pipe.close()


def test_a_closed_notebook_is_reported_from_disk_with_the_project(tmp_path: Path) -> None:
    root = _copy(NOTEBOOK / "buggy", tmp_path)
    pipe = _start(root, WORKSPACE_SCOPE, {})
    try:
        notebook = (root / "train.ipynb").as_uri()
        assert _codes(_published(pipe, notebook)) == ["GG201"]
    finally:
        pipe.close()
