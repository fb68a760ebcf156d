"""An edited file is given to the project index only once the typing pauses: a change of
the document cancels the revision still waiting for an older text (it would otherwise run
beside the check of the new text and hold the index while that check waits for it)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from gradguard.lsp import project
from gradguard.lsp.project import ProjectIndexer


class _Server(SimpleNamespace):
    """What the indexer reads of its server: the options, and where stale facts go."""

    def __init__(self) -> None:
        super().__init__(options=SimpleNamespace(workspace_index=True), stale=[])

    def facts_changed(self, paths: Any) -> None:
        self.stale.append(paths)


def _revisions(tmp_path: Path, typed_again: bool) -> list[str | None]:
    indexer = ProjectIndexer(_Server())  # type: ignore[arg-type]
    revised: list[str | None] = []
    indexer.live.revise = lambda path, text: revised.append(text) or frozenset()  # type: ignore[method-assign]
    path = str(tmp_path / "model.py")

    async def scenario() -> None:
        indexer.edited(path, "x = 1\n")  # the check of version 1 finished
        if typed_again:
            indexer.typing(path)  # version 2 arrives before the pause is over
        await asyncio.sleep(project.REVISE_AFTER_S * 3)

    try:
        asyncio.run(scenario())
    finally:
        indexer.stop()
    return revised


def test_a_pause_after_the_check_revises_the_file(tmp_path: Path) -> None:
    assert _revisions(tmp_path, typed_again=False) == ["x = 1\n"]


def test_typing_again_cancels_the_waiting_revision(tmp_path: Path) -> None:
    assert _revisions(tmp_path, typed_again=True) == []
