"""The server's state: settings per file, analysis scheduling, caching and publishing.

Analysis runs in a worker thread (`loop.run_in_executor`) so the event loop keeps
answering cancellations, hovers and code actions while a big file is analysed. Each
document has at most one pending run: a new edit cancels the pending one (during the
debounce) or makes its result stale (dropped when it arrives), and results are only ever
published for the document version they were computed from.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

import gradguard
from gradguard.analysis.incremental import Incremental
from gradguard.core.engine import collector_paused
from gradguard.core.findings import Finding
from gradguard.core.recovery import RecoveredCheck, check_with_recovery
from gradguard.core.settings import Settings, SettingsError
from gradguard.core.text import SourceText
from gradguard.lsp.diagnostics import Encoder, result_id, to_diagnostics
from gradguard.lsp.documents import (
    Snapshot,
    current_version,
    disk_snapshot,
    fs_path,
    is_open,
    key_for,
    snapshot,
)
from gradguard.lsp.housekeeping import Housekeeping
from gradguard.lsp.incremental import check as incremental_check
from gradguard.lsp.notebook import cell_citer
from gradguard.lsp.options import EditorOptions, parse_editor_options
from gradguard.lsp.project import ProjectIndexer
from gradguard.lsp.protocol import GradGuardProtocol
from gradguard.lsp.versions import NotebookVersions
from gradguard.workspace import ProjectSettings, source_files

log = logging.getLogger(__name__)

# Workspace diagnostics stop here: beyond it the editor would drown (said once in the log).
MAX_WORKSPACE_FILES = 5000


@dataclass(frozen=True)
class Analysis:
    """One analysed snapshot, converted to LSP diagnostics per shown document."""

    snapshot: Snapshot
    generation: int
    checked: RecoveredCheck
    diagnostics: dict[str, list[types.Diagnostic]]
    result_ids: dict[str, str]


@dataclass
class _Entry:
    """Per-key bookkeeping: the pending debounced run and the latest good analysis."""

    pending: asyncio.Task[None] | None = None
    latest: Analysis | None = None
    inflight: dict[tuple[int | None, int, int], asyncio.Future[Analysis | None]] = field(
        default_factory=dict
    )
    # Bumped when project facts the document used changed (another file was edited): an
    # analysis made before is stale although the document's own version is the same.
    facts: int = 0
    latest_facts: int = 0


class GradGuardServer(LanguageServer):
    """pygls server holding GradGuard's per-session state; handlers live in `lsp/handlers/`."""

    protocol: GradGuardProtocol

    def __init__(self) -> None:
        super().__init__(
            "gradguard",
            gradguard.__version__,
            protocol_cls=GradGuardProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[
                    types.NotebookDocumentFilterWithCells(
                        notebook="jupyter-notebook",
                        cells=[types.NotebookCellLanguage(language="python")],
                    )
                ],
                save=True,
            ),
        )
        self.options = EditorOptions()
        self.options_from_initialization = False
        self.generation = 0
        self.executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="gradguard")
        self._entries: dict[str, _Entry] = {}
        self._project = ProjectSettings()
        self._warned: set[str] = set()
        self.workspace_pulled = False
        self._pushed_closed: set[str] = set()
        self._background: set[asyncio.Future[None]] = set()
        self.notebook_versions = NotebookVersions()
        # The last analysis of each open Python document, for the next edit.
        self.incremental = Incremental()
        self.project = ProjectIndexer(self)
        # Memory is given back to the system when analyses pause.
        self.housekeeping = Housekeeping(self._analysing)
        self._indexing = False  # `initialized` came: the index may be warmed

    # -- capabilities ----------------------------------------------------------------------

    @property
    def encoding(self) -> str:
        """The negotiated position encoding ("utf-16" unless the client offered another)."""
        return str(self.workspace.position_encoding or "utf-16")

    @property
    def pull_mode(self) -> bool:
        """True when the client pulls diagnostics (`textDocument/diagnostic`)."""
        text_document = self.client_capabilities.text_document
        return text_document is not None and text_document.diagnostic is not None

    def client_supports(self, dotted: str) -> bool:
        """True when a (dotted, snake_case) client capability is present and truthy."""
        value: Any = self.client_capabilities
        for part in dotted.split("."):
            value = getattr(value, part, None)
            if value is None:
                return False
        return bool(value)

    # -- settings --------------------------------------------------------------------------

    def warn_once(self, message: str) -> None:
        """Show a settings problem to the user once (not on every keystroke)."""
        log.warning("%s", message)
        if message in self._warned:
            return
        self._warned.add(message)
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        )

    def update_options(self, raw: Any, *, refresh: bool = True) -> None:
        """Adopt new editor settings; bad keys fall back to defaults with one warning."""
        options, problems = parse_editor_options(raw)
        if problems:
            self.warn_once("GradGuard: ignoring invalid settings: " + "; ".join(problems))
        previous, self.options = self.options, options
        if self._indexing and previous.workspace_index != options.workspace_index:
            # Edits made while it was off never reached the index: start a new one.
            self.project.stop()
            self.project = ProjectIndexer(self)
            self.start_indexing()
        if refresh:
            self.settings_changed()

    def settings_changed(self) -> None:
        """Forget cached settings and analyses, then re-analyse without a restart."""
        self._project = ProjectSettings()
        self.generation += 1
        if self.pull_mode:
            if self.client_supports("workspace.diagnostics.refresh_support"):
                self.workspace_diagnostic_refresh(None)
        else:
            for key in list(self._entries):
                self.schedule(key, delay_ms=0)
        self.refresh_workspace_scope()

    def settings_for(self, path: str | None) -> Settings:
        """Defaults < nearest `[tool.gradguard]` < editor settings (see `gradguard.workspace`).

        A bad key in the `pyproject.toml` is dropped with one warning; a file that cannot be
        parsed at all gives the defaults, with one warning.
        """
        base = Settings()
        if path is not None:
            try:
                config = self._project.for_file(Path(path))
            except SettingsError as exc:
                self.warn_once(f"GradGuard: using default settings: {exc}")
            else:
                base = config.settings
                if config.problems:
                    problems = "; ".join(config.problems)
                    self.warn_once(f"GradGuard: ignoring invalid settings: {problems}")
        try:
            return self.options.apply(base)
        except SettingsError as exc:  # already validated key by key; belt and braces
            self.warn_once(f"GradGuard: ignoring editor settings: {exc}")
            return base

    # -- analysis --------------------------------------------------------------------------

    def snapshot(self, key: str) -> Snapshot | None:
        """The current text of document or notebook `key` (`None` when it is not open)."""
        return snapshot(self.workspace, key, self.notebook_versions)

    def current_version(self, key: str) -> int | None:
        """The version of document or notebook `key` now (`None` when it is not open)."""
        return current_version(self.workspace, key, self.notebook_versions)

    def document_changed(self, uri: str) -> None:
        """A text document changed; a notebook cell's change is a change of its notebook."""
        key = key_for(self.workspace, uri)
        if key != uri:
            self.notebook_versions.bump(key)
        path = fs_path(key)
        if path is not None:
            self.project.typing(path)  # keyed as `edited` is, by the snapshot's path

    def _analysing(self) -> bool:
        """Whether an analysis is running or waits for its debounce."""
        return any(
            (entry.pending is not None and not entry.pending.done())
            or any(not future.done() for future in entry.inflight.values())
            for entry in self._entries.values()
        )

    def entry(self, key: str) -> _Entry:
        """Bookkeeping for `key`, created on first use."""
        return self._entries.setdefault(key, _Entry())

    def forget(self, key: str) -> None:
        """Drop everything about a closed document, cancelling its pending run (other
        files of the project see its text on disk again)."""
        self.incremental.forget(key)
        entry = self._entries.pop(key, None)
        if entry is not None and entry.pending is not None:
            entry.pending.cancel()
        path = _document_path(key)
        if path is not None:
            self.project.closed(str(path))

    def python_files_changed(self, changes: list[types.FileEvent]) -> None:
        """Python files changed on disk (`workspace/didChangeWatchedFiles`): the project
        index follows them and re-publishes the open files whose facts changed."""
        self.project.files_changed(changes)

    def latest(self, key: str) -> Analysis | None:
        """The last good analysis of `key` (possibly of an older version)."""
        entry = self._entries.get(key)
        return entry.latest if entry else None

    def schedule(self, key: str, *, delay_ms: int | None = None) -> None:
        """Debounce: (re)start the run that analyses and publishes `key`."""
        entry = self.entry(key)
        if entry.pending is not None:
            entry.pending.cancel()
        delay = self.options.debounce_ms if delay_ms is None else delay_ms
        entry.pending = asyncio.ensure_future(self._publish_after(key, delay))

    async def _publish_after(self, key: str, delay_ms: int) -> None:
        try:
            if delay_ms > 0:
                await asyncio.sleep(delay_ms / 1000)
            analysis = await self.analyse(key)
            if analysis is None or self.pull_mode:
                return
            if self.current_version(key) != analysis.snapshot.version:
                return  # the document moved on; its own run will publish
            self.publish(analysis)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("GradGuard could not analyse %s", key)

    async def analyse(self, key: str) -> Analysis | None:
        """The analysis of `key`'s current version (cached; shared by concurrent callers).

        When the current text cannot be parsed even after recovery, the last good
        analysis is returned instead, so half-typed lines do not wipe the diagnostics.
        """
        snap = self.snapshot(key)
        if snap is None:
            return None
        entry = self.entry(key)
        facts = entry.facts
        if (
            entry.latest is not None
            and entry.latest.snapshot.version == snap.version
            and entry.latest.generation == self.generation
            and entry.latest_facts == facts
            and snap.version is not None
        ):
            return entry.latest
        token = (snap.version, self.generation, facts)
        future = entry.inflight.get(token)
        if future is None:
            future = asyncio.ensure_future(self._run(snap, self.generation))
            entry.inflight = {token: future}
        analysis = await asyncio.shield(future)
        if analysis is None:
            return entry.latest
        if entry.latest is None or _newer(analysis, entry.latest):
            entry.latest = analysis
            entry.latest_facts = facts
        return analysis

    async def _run(self, snap: Snapshot, generation: int) -> Analysis | None:
        settings = self.settings_for(snap.path)
        loop = asyncio.get_running_loop()
        good = self.latest(snap.key)
        last_good = None
        if good is not None and good.generation == generation:
            last_good = (good.snapshot.text, good.checked.result.findings)

        def work() -> Analysis | RecoveredCheck | None:
            # Queued behind other work and already stale: skip instead of analysing.
            if snap.version is not None and self.current_version(snap.key) != snap.version:
                return None
            reused = self.incremental.counters.reused
            # Paused until housekeeping froze what the next edit reuses: the collection the
            # check's allocations start then skips it (see `gradguard.lsp.housekeeping`).
            with collector_paused():
                checked = self.check(snap, settings, last_good)
                self.housekeeping.checked(reused=self.incremental.counters.reused > reused)
            if not checked.recovered:
                return checked
            # Converting builds the fixes' edits (possibly with libcst): keep it off the loop.
            return self.convert(snap, generation, checked)

        outcome = await loop.run_in_executor(self.executor, work)
        self.housekeeping.worked()
        if outcome is None:
            return None
        checked = outcome.checked if isinstance(outcome, Analysis) else outcome
        for error in checked.result.rule_errors:
            log.error(
                "GradGuard rule %s crashed on %s (other rules still reported): %s",
                error.code,
                snap.key,
                error.message,
            )
        if not isinstance(outcome, Analysis):
            log.debug("%s does not parse even after recovery; keeping diagnostics", snap.key)
            return None
        if snap.path is not None and snap.version is not None and _parsed_as_is(checked):
            self.project.edited(snap.path, snap.text)  # other files may import this one
        return outcome

    def check(
        self,
        snap: Snapshot,
        settings: Settings,
        last_good: tuple[str, tuple[Finding, ...]] | None = None,
    ) -> RecoveredCheck:
        """Check a snapshot (in a worker thread): a Python file or notebook as part of its
        project, with the names it imports from other files known, unless `workspaceIndex`
        is off."""
        path = snap.path
        with self.project.checking(path):
            if path is None or path.endswith(".py"):
                # An edit inside one function reuses the last analysis (see
                # `gradguard.analysis.incremental`); None: it takes the path below.
                entry = self._entries.get(snap.key)
                token = (self.generation, entry.facts if entry is not None else None, path)
                found = incremental_check(
                    self.incremental, snap.key, snap.text, path=path, settings=settings, token=token
                )
                if found is not None:
                    return RecoveredCheck(found)
            return check_with_recovery(snap.text, path=path, settings=settings, last_good=last_good)

    def facts_changed(self, paths: frozenset[Path] | None) -> None:
        """Project facts of the files at `paths` (None: of every file) changed: analyse the
        open documents among them again and publish (or ask a pulling client to pull), and
        so the closed ones whose diagnostics the workspace scope reported."""
        stale = [key for key in self._entries if paths is None or _document_path(key) in paths]
        for key in stale:
            self._entries[key].facts += 1
        pulled = self.workspace_pulled and (
            paths is None or any(not self.is_open(_uri(path)) for path in paths)
        )
        if self.pull_mode:
            if (stale or pulled) and self.client_supports("workspace.diagnostics.refresh_support"):
                self.workspace_diagnostic_refresh(None)
        else:
            for key in stale:
                if self.is_open(key):
                    self.schedule(key, delay_ms=0)
        if paths is None:  # files appeared or went: list the workspace again
            self.refresh_workspace_scope()
            return
        pushed = self._pushed_among(paths)
        if pushed:
            self._background.add(task := asyncio.ensure_future(self._push_closed(pushed)))
            task.add_done_callback(self._background.discard)

    def _pushed_among(self, paths: frozenset[Path]) -> list[Path]:
        """The closed files among `paths` whose diagnostics the workspace scope pushed
        (they are pushed again when their facts change)."""
        if self.options.scope != "workspace" or self.workspace_pulled:
            return []
        found = []
        for uri in sorted(self._pushed_closed):
            if _document_path(uri) in paths and not self.is_open(uri):
                found.append(Path(str(to_fs_path(uri))))  # as pushed (not resolved)
        return found

    def convert(self, snap: Snapshot, generation: int, checked: RecoveredCheck) -> Analysis:
        """Turn engine findings into per-document LSP diagnostics."""
        encoder = Encoder(SourceText(snap.text), self.encoding)
        cite = cell_citer(snap.notebook, snap.cell_numbers)
        grouped = to_diagnostics(
            checked.result.findings, encoder, snap.map_range, snap.version, cite
        )
        if snap.from_disk_notebook:
            # Fixes are edits of the cells, not of the notebook's JSON: offered once it is open.
            for items in grouped.values():
                for diagnostic in items:
                    diagnostic.data = None
        diagnostics = {uri: grouped.get(uri, []) for uri in snap.uris()}
        for uri, items in grouped.items():
            diagnostics.setdefault(uri, items)
        converter = self.protocol._converter
        ids = {uri: result_id(items, converter) for uri, items in diagnostics.items()}
        return Analysis(snap, generation, checked, diagnostics, ids)

    def publish(self, analysis: Analysis) -> None:
        """Push an analysis's diagnostics (one notification per shown document)."""
        for uri, items in analysis.diagnostics.items():
            version = analysis.snapshot.version if uri == analysis.snapshot.key else None
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=version)
            )

    def clear(self, uris: list[str]) -> None:
        """Publish empty diagnostics for closed documents."""
        for uri in uris:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    # -- workspace scope -------------------------------------------------------------------

    async def workspace_file_list(self) -> list[Path]:
        """`workspace_files`, listed off the event loop (a large or slow disk must not stall
        the server)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, lambda: list(self.workspace_files()))

    def workspace_files(self) -> Iterator[Path]:
        """The files `gradguard check` would check in the workspace folders (bounded).

        Discovery is `gradguard.workspace.source_files`, the CLI's: `*.py` and `*.ipynb`,
        the same skipped directories, `.gitignore` honoured.
        """
        roots = [to_fs_path(folder.uri) for folder in self.workspace.folders.values()]
        if not roots and self.workspace.root_path:
            roots = [self.workspace.root_path]
        usable = [root for root in roots if root is not None and "\0" not in root]
        discovery = source_files(usable)
        for where, message in discovery.errors:
            log.warning("GradGuard: %s: %s", where, message)
        if len(discovery.files) > MAX_WORKSPACE_FILES:
            log.warning(
                "GradGuard: the workspace has %d files; diagnostics cover the first %d",
                len(discovery.files),
                MAX_WORKSPACE_FILES,
            )
        yield from discovery.files[:MAX_WORKSPACE_FILES]

    async def analyse_closed(self, path: Path) -> Analysis | None:
        """Analyse a file that is not open, from disk."""
        uri = from_fs_path(str(path)) or path.as_uri()
        settings = self.settings_for(str(path))
        loop = asyncio.get_running_loop()
        generation = self.generation

        def work() -> Analysis | None:
            # Reading happens here, off the event loop, like the analysis itself.
            snap = disk_snapshot(path, uri)
            if snap is None:
                return None
            checked = self.check(snap, settings)
            return self.convert(snap, generation, checked) if checked.recovered else None

        return await loop.run_in_executor(self.executor, work)

    def is_open(self, uri: str) -> bool:
        """True when `uri` is an open document (or a cell of an open notebook)."""
        return is_open(self.workspace, uri)

    def opened_from_disk(self, uri: str) -> None:
        """A file whose diagnostics the workspace scope pushed from disk was opened.

        A notebook's open cells show its diagnostics from now on: the ones pushed for the
        closed file (on lines of its JSON) are cleared. A text document's own publish
        replaces them by itself.
        """
        if uri in self._pushed_closed:
            self._pushed_closed.discard(uri)
            self.clear([uri])

    def start_indexing(self) -> None:
        """Index the workspace's project files in the background (see `lsp.project`)."""
        self._indexing = True
        self._background.add(task := asyncio.ensure_future(self.project.warm()))
        task.add_done_callback(self._background.discard)

    def refresh_workspace_scope(self) -> None:
        """With `scope = "workspace"`, push diagnostics for every closed file too."""
        if self.options.scope != "workspace" or self.workspace_pulled:
            if self._pushed_closed and not self.workspace_pulled:
                self.clear(sorted(u for u in self._pushed_closed if not self.is_open(u)))
                self._pushed_closed.clear()
            return
        self._background.add(task := asyncio.ensure_future(self._push_workspace()))
        task.add_done_callback(self._background.discard)

    async def _push_workspace(self) -> None:
        try:
            files = await self.workspace_file_list()
            listed = {_uri(path) for path in files}
            gone = sorted(u for u in self._pushed_closed - listed if not self.is_open(u))
            self._pushed_closed.difference_update(gone)
            self.clear(gone)  # deleted, or no longer checked
            await self._push_closed(files)
        except Exception:
            log.exception("GradGuard could not analyse the workspace")

    async def _push_closed(self, paths: list[Path]) -> None:
        """Analyse the closed files at `paths` from disk and push their diagnostics."""
        try:
            for path in paths:
                uri = _uri(path)
                if self.is_open(uri):
                    continue
                analysis = await self.analyse_closed(path)
                if analysis is None or self.is_open(uri) or self.options.scope != "workspace":
                    continue
                self._pushed_closed.add(uri)
                self.publish(analysis)
        except Exception:
            log.exception("GradGuard could not analyse the workspace")


def _parsed_as_is(checked: RecoveredCheck) -> bool:
    """True when the text was analysed as it is (not half-typed code set aside): only such
    a text becomes what other files see of it."""
    return checked.result.parse_error is None and not checked.replaced and not checked.carried


def _uri(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


def _document_path(key: str) -> Path | None:
    path = to_fs_path(key)
    return Path(path).resolve() if path and "\0" not in path else None


def _newer(candidate: Analysis, current: Analysis) -> bool:
    if candidate.generation != current.generation:
        return candidate.generation > current.generation
    a, b = candidate.snapshot.version, current.snapshot.version
    return a is None or b is None or a >= b
