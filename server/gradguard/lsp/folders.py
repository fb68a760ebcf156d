"""Workspace folders the server can walk: a folder whose URI names no usable path is dropped.

A client may send a folder URI whose path holds a NUL (`%00`) or a lone surrogate; every
file-system call on such a path raises, which failed every `workspace/diagnostic`
request. Such a folder is removed from the workspace when it is added, with one warning.
"""

from __future__ import annotations

import logging
import os

from pygls.uris import to_fs_path
from pygls.workspace import Workspace

log = logging.getLogger(__name__)


def usable_path(uri: str | None) -> bool:
    """True when `uri` is a `file:` URI naming a path the operating system can accept."""
    if not uri:
        return False
    path = to_fs_path(uri)
    if path is None:
        return False
    try:
        encoded = os.fsencode(path)
    except UnicodeError:
        return False
    return b"\0" not in encoded


def drop_unusable_folders(workspace: Workspace) -> None:
    """Remove (and report) the workspace folders, and the root, that name no usable path."""
    for key, folder in list(workspace.folders.items()):
        if not usable_path(folder.uri):
            log.warning("GradGuard: skipping workspace folder %r: not a usable path", folder.uri)
            del workspace.folders[key]
    if workspace.root_uri is not None and not usable_path(workspace.root_uri):
        log.warning("GradGuard: skipping workspace root %r: not a usable path", workspace.root_uri)
        # pygls offers no setter; the root is only a fallback when there are no folders.
        workspace._root_path = None
