"""Settings that change during a session: the editor's configuration and `pyproject.toml`."""

from __future__ import annotations

import logging
from urllib.parse import unquote

from lsprotocol import types

from gradguard.lsp.state import GradGuardServer

log = logging.getLogger(__name__)


async def did_change_configuration(
    ls: GradGuardServer, params: types.DidChangeConfigurationParams
) -> None:
    """Adopt pushed settings, or pull them when the notification carries none."""
    settings = params.settings
    if isinstance(settings, dict) and settings and settings.get("gradguard", {}) is not None:
        ls.update_options(settings)
    elif ls.client_supports("workspace.configuration"):
        await pull_configuration(ls)


def did_change_watched_files(
    ls: GradGuardServer, params: types.DidChangeWatchedFilesParams
) -> None:
    """A `pyproject.toml` changed: re-read settings and re-analyse. Python files changed:
    the project index follows them (and re-publishes the open files that import them)."""
    if any(unquote(change.uri).endswith("pyproject.toml") for change in params.changes):
        log.info("pyproject.toml changed; re-applying settings")
        ls.settings_changed()
    python = [change for change in params.changes if unquote(change.uri).endswith(".py")]
    if python:
        ls.python_files_changed(python)


async def pull_configuration(ls: GradGuardServer) -> None:
    """Ask the client for the `gradguard` settings section (`workspace/configuration`)."""
    try:
        values = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="gradguard")])
        )
    except Exception:  # a client that fails the request keeps the current settings
        log.warning("workspace/configuration failed; keeping current settings", exc_info=True)
        return
    ls.update_options(values[0] if values else None)
