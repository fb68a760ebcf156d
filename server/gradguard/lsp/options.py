"""Editor settings: `initializationOptions` and `workspace/didChangeConfiguration` payloads.

Editor settings are laid over the nearest `pyproject.toml` `[tool.gradguard]` exactly as
`gradguard check`'s flags are (`gradguard.workspace.Overrides`): `select` starts a fresh
selection, `ignore` alone extends the project's `ignore`, `severity` replaces the project's
entry code by code, `unsafeFixes` wins. Keys the editor leaves unset (or `null`) fall
through to the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gradguard.core.settings import Settings, SettingsError, parse_settings
from gradguard.workspace import Overrides

DEFAULT_DEBOUNCE_MS = 150
SCOPES = ("openFiles", "workspace")

# Editor key -> `[tool.gradguard]` key understood by `parse_settings`.
_RULE_KEYS = {
    "select": "select",
    "ignore": "ignore",
    "severity": "severity",
    "unsafeFixes": "unsafe_fixes",
    "unsafe_fixes": "unsafe_fixes",
}


@dataclass(frozen=True)
class EditorOptions:
    """Validated editor settings: rule overrides for `Settings`, plus server behaviour."""

    overrides: Mapping[str, Any] = field(default_factory=dict)
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    scope: str = "openFiles"
    rules: Overrides = field(default_factory=Overrides)
    # Names imported from other files of the project are known (see `gradguard.project`).
    workspace_index: bool = True

    def apply(self, base: Settings) -> Settings:
        """The file's settings with the editor's keys laid on top (see `Overrides`)."""
        return self.rules.apply(base)

    @property
    def unsafe_fixes_override(self) -> bool | None:
        """The editor's `unsafeFixes`, when it sets one."""
        value = self.overrides.get("unsafe_fixes")
        return value if isinstance(value, bool) else None


def _unwrap(raw: Any, problems: list[str]) -> Mapping[str, Any]:
    """Accept `{...}` and `{"gradguard": {...}}` alike; `null` means "no settings", and any
    other value is reported as a problem and means "no settings" too."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        problems.append(f"the settings must be an object, got {raw!r}")
        return {}
    nested = raw.get("gradguard")
    if isinstance(nested, Mapping):
        return nested
    if nested is not None:
        problems.append(f"`gradguard` must be an object of settings, got {nested!r}")
        return {}
    return raw


def _rules(overrides: Mapping[str, Any]) -> Overrides:
    """The validated rule keys as `Overrides` (the rest of the file's settings stay)."""
    parsed = parse_settings(overrides)
    return Overrides(
        select=parsed.select if "select" in overrides else None,
        ignore=parsed.ignore if "ignore" in overrides else None,
        severity=parsed.severity if "severity" in overrides else None,
        unsafe_fixes=parsed.unsafe_fixes if "unsafe_fixes" in overrides else None,
    )


def parse_editor_options(raw: Any) -> tuple[EditorOptions, list[str]]:
    """Validate editor settings; bad keys fall back to their defaults and are reported.

    Returns the options and one problem description per rejected key. Keys this server
    does not know (a client may send its own, such as an interpreter path) are ignored.
    """
    problems: list[str] = []
    table = _unwrap(raw, problems)
    overrides: dict[str, Any] = {}
    for key, value in table.items():
        if value is None or key not in _RULE_KEYS:
            continue
        target = _RULE_KEYS[key]
        try:
            parse_settings({target: value})
        except SettingsError as exc:
            problems.append(str(exc).replace(f"`{target}`", f"`{key}`"))
            continue
        overrides[target] = value
    debounce = table.get("debounceMs", table.get("debounce_ms"))
    debounce_ms = DEFAULT_DEBOUNCE_MS
    if debounce is not None:
        if isinstance(debounce, (int, float)) and not isinstance(debounce, bool) and debounce >= 0:
            debounce_ms = int(debounce)
        else:
            problems.append(f"`debounceMs` must be a number of milliseconds >= 0, got {debounce!r}")
    scope = table.get("scope")
    if scope is not None and scope not in SCOPES:
        problems.append(f"`scope` must be one of {', '.join(SCOPES)}, got {scope!r}")
        scope = None
    index = table.get("workspaceIndex", table.get("workspace_index"))
    if index is not None and not isinstance(index, bool):
        problems.append(f"`workspaceIndex` must be true or false, got {index!r}")
        index = None
    options = EditorOptions(
        overrides=overrides,
        debounce_ms=debounce_ms,
        scope=scope or "openFiles",
        rules=_rules(overrides),
        workspace_index=index if index is not None else True,
    )
    return options, problems
