"""Code actions and the fix-all command: thin wrappers over `gradguard.lsp.actions`."""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types

from gradguard.lsp import actions
from gradguard.lsp.state import GradGuardServer

log = logging.getLogger(__name__)

APPLY_FIX_ALL = "gradguard.applyFixAll"


async def code_action(
    ls: GradGuardServer, params: types.CodeActionParams
) -> list[types.CodeAction]:
    """Quick fixes, noqa and fix-all actions for the requested range."""
    return await actions.code_actions(ls, params)


async def code_action_resolve(ls: GradGuardServer, params: types.CodeAction) -> types.CodeAction:
    """Fill in a code action's edit (built lazily)."""
    return await actions.resolve(ls, params)


async def apply_fix_all(ls: GradGuardServer, *args: Any) -> bool:
    """`gradguard.applyFixAll [uri]`: apply every safe fix in the document."""
    uri = uri_argument(args)
    if uri is None:
        log.warning("%s needs a document URI argument, got %r", APPLY_FIX_ALL, args)
        return False
    edit = await actions.fix_all_edit(ls, uri, None)
    if edit is None:
        return False
    result = await ls.workspace_apply_edit_async(
        types.ApplyWorkspaceEditParams(edit=edit, label="GradGuard: Fix all")
    )
    return bool(result.applied)


def uri_argument(args: tuple[Any, ...]) -> str | None:
    """The document URI from a command's arguments (`[uri]`, `uri` or `{"uri": ...}`)."""
    value: Any = args
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    if isinstance(value, dict):
        value = value.get("uri")
    return value if isinstance(value, str) else None
