"""The language server's view of the whole project: one `LiveIndex`, kept current.

* Warmed on `initialized` (`warm`): the workspace's Python files are read (their imports,
  without parsing) and the files other files import are summarised, one file per step on
  the index's own thread, with `window/workDoneProgress` when the client shows progress.
  Checks of open files go on meanwhile (they summarise what they need themselves).
* Revised after each analysis of an open document from the editor's text (`edited`), on
  `didClose` from disk, and on `workspace/didChangeWatchedFiles` (`files_changed`): when
  what a file shows its importers changed, the open documents that used it are analysed
  again and re-published (`GradGuardServer.facts_changed`). An edit that changes no
  summary costs one content hash here and re-analyses nothing else. Under the workspace
  scope the closed files among them are reported again too, and so is a closed file that
  changed on disk itself.
* Used by every analysis of a document (`checking`): a Python file or a notebook, its
  quick fixes and its fix-all alike, sees the names it imports from the project.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.uris import to_fs_path

from gradguard.project.live import LiveIndex, imported_files

if TYPE_CHECKING:
    from gradguard.lsp.state import GradGuardServer

log = logging.getLogger(__name__)

PROGRESS_TOKEN = "gradguard-index"
_REPORT_EVERY_S = 0.2  # at most five progress reports a second
# An edited file is summarised again (for the files importing it) after this pause in typing.
REVISE_AFTER_S = 0.25
_T = TypeVar("_T")


class ProjectIndexer:
    """The server's project index and the background work that keeps it current."""

    def __init__(self, server: GradGuardServer) -> None:
        self.server = server
        self.live = LiveIndex()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gradguard-index")
        self.stopped = False
        self._tasks: set[asyncio.Future[None]] = set()
        self._pending: dict[str, asyncio.Future[None]] = {}  # by path: the waiting revision

    @property
    def enabled(self) -> bool:
        """The `workspaceIndex` setting (on unless the editor turns it off)."""
        return self.server.options.workspace_index

    def checking(self, path: str | None) -> AbstractContextManager[None]:
        """Analyse (or fix) the file or notebook at `path` as part of its project while the
        block runs; enter it in the thread that analyses. Nothing happens when the index is
        off or the document has no file of its own (an untitled buffer)."""
        if path is None or not self.enabled or not path.endswith(_CHECKED_SUFFIXES):
            return contextlib.nullcontext()
        return self.live.checking(Path(path))

    def stop(self) -> None:
        """Stop background work (at shutdown): queued steps are dropped."""
        self.stopped = True
        self.executor.shutdown(wait=False, cancel_futures=True)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _off_loop(self, work: Callable[[], _T]) -> _T | None:
        """Run `work` on the index thread (None once the server is stopping)."""
        if self.stopped:
            return None
        try:
            return await asyncio.get_running_loop().run_in_executor(self.executor, work)
        except RuntimeError:  # the executor was shut down meanwhile
            return None

    # -- changes -----------------------------------------------------------------------------

    def edited(self, path: str, text: str) -> None:
        """An open document's current text was analysed: give it to the index once the
        typing pauses (`REVISE_AFTER_S`), so summarising it again never competes with the
        checks of the next keystrokes."""
        if not self.enabled or self.stopped or not path.endswith(".py"):
            return
        pending = self._pending.pop(path, None)
        if pending is not None:
            pending.cancel()
        task = asyncio.ensure_future(self._revise([(Path(path), text)], REVISE_AFTER_S))
        self._pending[path] = task
        task.add_done_callback(lambda done: self._done(path, done))

    def typing(self, path: str) -> None:
        """The open document at `path` changed again: a revision waiting for the typing to
        pause is for an older text, and would compete with the check of this one (the
        check re-arms it through `edited`)."""
        pending = self._pending.pop(path, None)
        if pending is not None:
            pending.cancel()

    def _done(self, path: str, task: asyncio.Future[None]) -> None:
        if self._pending.get(path) is task:
            del self._pending[path]

    def closed(self, path: str) -> None:
        """An open document was closed: the disk is its content again."""
        if self.enabled and not self.stopped and path.endswith(".py"):
            pending = self._pending.pop(path, None)
            if pending is not None:
                pending.cancel()  # the editor's text is gone: the disk's replaces it
            self._spawn(self._revise([(Path(path), None)]))

    def files_changed(self, changes: Iterable[types.FileEvent]) -> None:
        """Python files were created, changed or deleted on disk."""
        if not self.enabled or self.stopped:
            return
        changed: list[tuple[Path, str | None]] = []
        appeared = False  # created or deleted
        for change in changes:
            path = _python_path(change.uri)
            if path is None or self.server.is_open(change.uri):
                continue  # the editor's text of an open document wins over the disk
            if change.type == types.FileChangeType.Changed:
                changed.append((path, None))
            else:
                appeared = True  # imports may now resolve to other files
        if appeared:
            self._spawn(self._forget_all())
        elif changed:
            # A closed file changed on disk is stale itself, not only the files importing it.
            self._spawn(self._revise(changed, itself=True))

    async def _revise(
        self, changes: list[tuple[Path, str | None]], delay: float = 0, *, itself: bool = False
    ) -> None:
        if delay:
            await asyncio.sleep(delay)

        def work() -> frozenset[Path]:
            stale: set[Path] = {path.resolve() for path, _ in changes} if itself else set()
            for path, text in changes:
                stale |= self.live.revise(path, text)
            return frozenset(stale)

        stale = await self._off_loop(work)
        self.server.housekeeping.worked()
        if stale:
            log.info("project facts changed for %d file(s)", len(stale))
            self.server.facts_changed(stale)

    async def _forget_all(self) -> None:
        stale = await self._off_loop(self.live.forget_all)
        if stale is not None:
            self.server.facts_changed(None)

    # -- warming -----------------------------------------------------------------------------

    async def warm(self) -> None:
        """Read the workspace's Python files and summarise those others import."""
        try:
            if self.enabled:
                await self._warm()
        except Exception:
            log.exception("GradGuard could not index the workspace")

    async def _warm(self) -> None:
        started = time.monotonic()
        progress = await _Progress.start(self.server)
        files = await self._off_loop(lambda: list(self.server.workspace_files()))
        python = [path for path in files or [] if path.suffix == ".py"]
        links: dict[Path, tuple[Path, ...]] = {}
        for number, path in enumerate(python):
            found = await self._off_loop(partial(self.live.read, path))
            if found is None:
                return  # stopping
            links[path] = found
            progress.report(f"{number + 1}/{len(python)} files read", number / len(python) / 2)
        imported = imported_files(links)
        await self._off_loop(lambda: self.live.release(set(links) - set(imported)))
        summarised = 0
        for number, path in enumerate(imported):
            room = await self._off_loop(partial(self.live.summarise, path))
            if self.stopped:
                return
            summarised = number + 1
            message = f"{summarised}/{len(imported)} files summarised"
            progress.report(message, 0.5 + number / len(imported) / 2)
            if room is False:
                # The index's budget is full: checks summarise what they need.
                await self._off_loop(partial(self.live.release, set(imported[summarised:])))
                break
        progress.end(f"{len(python)} files, {summarised} summarised")
        self.server.housekeeping.worked()
        log.info(
            "GradGuard indexed %d files (%d summarised) in %.1f s",
            len(python),
            summarised,
            time.monotonic() - started,
        )


# What is analysed with the project: Python files and Jupyter notebooks.
_CHECKED_SUFFIXES = (".py", ".ipynb")


def _python_path(uri: str) -> Path | None:
    path = to_fs_path(uri)
    return Path(path) if path and path.endswith(".py") and "\0" not in path else None


class _Progress:
    """`$/progress` for the warming (silent when the client does not show progress)."""

    def __init__(self, server: GradGuardServer | None) -> None:
        self.server = server
        self._last = 0.0

    @classmethod
    async def start(cls, server: GradGuardServer) -> _Progress:
        if not server.client_supports("window.work_done_progress"):
            return cls(None)
        try:
            await server.work_done_progress.create_async(PROGRESS_TOKEN)
        except Exception:  # the client refused: index without showing progress
            log.debug("window/workDoneProgress/create failed", exc_info=True)
            return cls(None)
        begin = types.WorkDoneProgressBegin(
            title="GradGuard: indexing the project", cancellable=False, percentage=0
        )
        server.work_done_progress.begin(PROGRESS_TOKEN, begin)
        return cls(server)

    def report(self, message: str, fraction: float) -> None:
        now = time.monotonic()
        if self.server is None or now - self._last < _REPORT_EVERY_S:
            return
        self._last = now
        percentage = min(100, int(fraction * 100))
        value = types.WorkDoneProgressReport(message=message, percentage=percentage)
        self.server.work_done_progress.report(PROGRESS_TOKEN, value)

    def end(self, message: str) -> None:
        if self.server is not None:
            value = types.WorkDoneProgressEnd(message=message)
            self.server.work_done_progress.end(PROGRESS_TOKEN, value)
