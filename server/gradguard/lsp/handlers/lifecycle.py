"""Starting and stopping a session: `initialize`, `initialized`, `shutdown`."""

from __future__ import annotations

import logging

from lsprotocol import types

import gradguard
from gradguard.lsp.folders import drop_unusable_folders
from gradguard.lsp.handlers.settings import pull_configuration
from gradguard.lsp.state import GradGuardServer
from gradguard.lsp.synced_text import adopt

log = logging.getLogger(__name__)


def initialize(ls: GradGuardServer, params: types.InitializeParams) -> None:
    """Adopt the client's `initializationOptions` (without analysing anything yet)."""
    client = params.client_info.name if params.client_info else "an unnamed client"
    log.info("GradGuard %s serving %s", gradguard.__version__, client)
    adopt(ls.workspace)  # changes land where the editor made them (see `synced_text`)
    drop_unusable_folders(ls.workspace)
    ls.options_from_initialization = params.initialization_options is not None
    if params.initialization_options is not None:
        # Nothing is open yet, and the client must see the initialize result first.
        ls.update_options(params.initialization_options, refresh=False)


async def initialized(ls: GradGuardServer, params: types.InitializedParams) -> None:
    """Watch `pyproject.toml` and Python files, fetch settings when none came with
    `initialize`, then index the project in the background."""
    if ls.client_supports("workspace.did_change_watched_files.dynamic_registration"):
        await register_pyproject_watcher(ls)
        await register_python_watcher(ls)
    if not ls.options_from_initialization and ls.client_supports("workspace.configuration"):
        await pull_configuration(ls)
    else:
        ls.refresh_workspace_scope()
    ls.start_indexing()


def shutdown(ls: GradGuardServer, params: None) -> None:
    """Stop analysing and indexing: queued work is dropped."""
    ls.executor.shutdown(wait=False, cancel_futures=True)
    ls.project.stop()


async def register_pyproject_watcher(ls: GradGuardServer) -> None:
    """Ask the client to tell us about `pyproject.toml` changes (if refused, settings apply
    on restart or a configuration change)."""
    await _register_watcher(ls, "gradguard-pyproject", "**/pyproject.toml", "pyproject.toml")


async def register_python_watcher(ls: GradGuardServer) -> None:
    """Ask the client to tell us about Python files changed, created or deleted on disk
    (the project index follows them; a separate registration, so a client refusing it
    still watches `pyproject.toml`; if refused, files changed on disk are seen on
    reopening)."""
    await _register_watcher(ls, "gradguard-python", "**/*.py", "Python file")


async def _register_watcher(ls: GradGuardServer, key: str, pattern: str, what: str) -> None:
    """Dynamic registration of one file watcher; a refusing client costs one warning."""
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id=key,
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=[types.FileSystemWatcher(glob_pattern=pattern)]
                        ),
                    )
                ]
            )
        )
    except Exception:
        log.warning("could not register a %s watcher", what, exc_info=True)
