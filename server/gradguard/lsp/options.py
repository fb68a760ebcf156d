"""Editor settings: `initializationOptions` and `workspace/didChangeConfiguration` payloads.

Precedence, like ruff: a key set in the editor wins over the same key in the nearest
`pyproject.toml` `[tool.gradguard]`, which wins over the defaults. Keys the editor leaves
unset (or `null`) fall through to the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gradguard.core.settings import Settings, SettingsError, parse_settings

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

    def apply(self, base: Settings) -> Settings:
        """The file's settings with the editor's keys laid on top."""
        return parse_settings(self.overrides, base) if self.overrides else base

    @property
    def unsafe_fixes_override(self) -> bool | None:
        """The editor's `unsafeFixes`, when it sets one."""
        value = self.overrides.get("unsafe_fixes")
        return value if isinstance(value, bool) else None


def _unwrap(raw: Any) -> Mapping[str, Any]:
    """Accept `{...}` and `{"gradguard": {...}}` alike; anything else means "no settings"."""
    if not isinstance(raw, Mapping):
        return {}
    nested = raw.get("gradguard")
    if isinstance(nested, Mapping):
        return nested
    return raw


def parse_editor_options(raw: Any) -> tuple[EditorOptions, list[str]]:
    """Validate editor settings; bad keys fall back to their defaults and are reported.

    Returns the options and one problem description per rejected key. Keys this server
    does not know (a client may send its own, such as an interpreter path) are ignored.
    """
    table = _unwrap(raw)
    problems: list[str] = []
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
    options = EditorOptions(
        overrides=overrides, debounce_ms=debounce_ms, scope=scope or "openFiles"
    )
    return options, problems
