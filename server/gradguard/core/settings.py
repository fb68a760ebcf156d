"""User settings: rule selection, severities, fix policy; read from `[tool.gradguard]`.

Precedence: defaults here < the nearest `pyproject.toml` < editor settings < command-line
flags (see `gradguard.workspace.Overrides` for how `select`/`ignore` combine). A bad value
in a file drops only that key (`parse_settings_leniently`); a file that cannot be read at
all is a `SettingsError`.
"""

from __future__ import annotations

import contextlib
import fnmatch
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

    from gradguard.core.findings import Severity


class SettingsError(ValueError):
    """A setting has the wrong type or value; the message names it."""


@dataclass(frozen=True)
class Settings:
    """The effective configuration for one file."""

    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    severity: Mapping[str, Severity] = field(default_factory=dict)
    unsafe_fixes: bool = False
    source: Path | None = None

    def is_enabled(self, code: str, path: str | None = None) -> bool:
        """True when `code` is selected, not ignored, and not ignored for `path`."""
        selected = _longest_match(code, self.select)
        ignored = _longest_match(code, self.ignore)
        if selected < 0 or ignored >= selected:
            return False
        if path is not None:
            for pattern, codes in self.per_file_ignores.items():
                if _path_matches(path, pattern, self.source) and _longest_match(code, codes) >= 0:
                    return False
        return True

    def severity_for(self, code: str, default: Severity) -> Severity:
        """The configured severity for `code` (exact code or longest prefix), else `default`."""
        best = -1
        result = default
        for key, value in self.severity.items():
            length = _prefix_length(code, key)
            if length > best:
                best, result = length, value
        return result

    def merged(self, overrides: Mapping[str, Any]) -> Settings:
        """Return a copy with the given (already validated) keys replaced."""
        return replace(self, **overrides)


def _prefix_length(code: str, selector: str) -> int:
    selector = selector.strip().upper()
    if selector == "ALL":
        return 0
    return len(selector) if code.startswith(selector) else -1


def _longest_match(code: str, selectors: tuple[str, ...]) -> int:
    return max((_prefix_length(code, s) for s in selectors), default=-1)


def _path_matches(path: str, pattern: str, config_file: Path | None) -> bool:
    candidate = PurePath(path)
    names = {candidate.as_posix(), candidate.name}
    if config_file is not None:
        with contextlib.suppress(ValueError, OSError):
            names.add(Path(path).resolve().relative_to(config_file.parent.resolve()).as_posix())
    return any(fnmatch.fnmatch(name, pattern) for name in names)


def _codes(key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"`{key}` must be a list of rule codes, got {value!r}")
    return tuple(v.strip().upper() for v in value if v.strip())


def _severity(key: str, value: Any) -> Severity:
    # Imported here: only a `severity` table needs it (start-up).
    from gradguard.core.findings import Severity

    try:
        return Severity(str(value).lower())
    except ValueError:
        choices = ", ".join(s.value for s in Severity)
        raise SettingsError(f"`{key}` must be one of {choices}, got {value!r}") from None


def parse_settings(table: Mapping[str, Any], base: Settings | None = None) -> Settings:
    """Validate a `[tool.gradguard]`-shaped mapping (dashes or underscores) into `Settings`."""
    settings = base or Settings()
    updates: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        if key in ("select", "ignore"):
            updates[key] = _codes(raw_key, value)
        elif key == "extend_ignore":
            updates["ignore"] = updates.get("ignore", settings.ignore) + _codes(raw_key, value)
        elif key == "per_file_ignores":
            if not isinstance(value, Mapping):
                raise SettingsError(f"`{raw_key}` must be a table of glob = [codes]")
            updates[key] = {str(k): _codes(f"{raw_key}.{k}", v) for k, v in value.items()}
        elif key == "severity":
            if not isinstance(value, Mapping):
                raise SettingsError(f"`{raw_key}` must be a table of CODE = severity")
            updates[key] = {
                str(k).upper(): _severity(f"{raw_key}.{k}", v) for k, v in value.items()
            }
        elif key == "unsafe_fixes":
            if not isinstance(value, bool):
                raise SettingsError(f"`{raw_key}` must be true or false, got {value!r}")
            updates[key] = value
        else:
            raise SettingsError(f"unknown setting `{raw_key}`")
    return settings.merged(updates)


_TABLES = frozenset({"severity", "per_file_ignores"})


def parse_settings_leniently(
    table: Mapping[str, Any], base: Settings | None = None
) -> tuple[Settings, list[str]]:
    """Like `parse_settings`, but a bad key is dropped (and described) instead of raising.

    In the `severity` and `per-file-ignores` tables only the bad entries are dropped.
    Returns the settings built from every good key and one problem per dropped one.
    """
    settings = base or Settings()
    problems: list[str] = []
    for raw_key, value in table.items():
        try:
            settings = parse_settings({raw_key: value}, settings)
            continue
        except SettingsError as exc:
            if raw_key.replace("-", "_") not in _TABLES or not isinstance(value, Mapping):
                problems.append(str(exc))
                continue
        good: dict[str, Any] = {}
        for entry, entry_value in value.items():
            try:
                parse_settings({raw_key: {entry: entry_value}})
            except SettingsError as exc:
                problems.append(str(exc))
                continue
            good[entry] = entry_value
        if good:
            settings = parse_settings({raw_key: good}, settings)
    return settings, problems


def find_pyproject(start: Path) -> Path | None:
    """The nearest `pyproject.toml` at or above `start` that has a `[tool.gradguard]` table
    (files that cannot be read or parsed are passed over)."""
    directory = start if start.is_dir() else start.parent
    for folder in (directory, *directory.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                table = _gradguard_table(candidate, _read_toml(candidate))
            except SettingsError:
                continue
            if table is not None:
                return candidate
    return None


def nearest_settings_file(start: Path) -> Path | None:
    """Like `find_pyproject`, but the nearest `pyproject.toml` must be valid.

    A broken nearest file raises `SettingsError`: silently taking the settings of a file
    further up (or the defaults) would change which rules run without a word.
    """
    directory = start if start.is_dir() else start.parent
    for folder in (directory, *directory.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            if _gradguard_table(candidate, _read_toml(candidate)) is not None:
                return candidate
            return find_pyproject(folder.parent) if folder.parent != folder else None
    return None


def load_pyproject(path: Path, base: Settings | None = None) -> Settings:
    """Read `[tool.gradguard]` from `path`; raise `SettingsError` with the file name on errors."""
    table = _gradguard_table(path, _read_toml(path)) or {}
    try:
        settings = parse_settings(table, base)
    except SettingsError as exc:
        raise SettingsError(f"{path}: {exc}") from exc
    return replace(settings, source=path)


def load_pyproject_leniently(path: Path) -> tuple[Settings, list[str]]:
    """Read `[tool.gradguard]` from `path`, dropping bad keys (see `parse_settings_leniently`).

    Returns the settings and one problem per dropped key, each naming the file. A file that
    cannot be read or parsed, or whose `tool`/`[tool.gradguard]` is not a table, still
    raises `SettingsError`: there is nothing in it to keep.
    """
    table = _gradguard_table(path, _read_toml(path)) or {}
    settings, problems = parse_settings_leniently(table)
    return replace(settings, source=path), [f"{path}: {problem}" for problem in problems]


def _read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; every failure (also a pathologically nested one) is a `SettingsError`.

    The TOML parser is imported here, when a configuration file is found: a check without
    one (pre-commit on a plain tree) does not pay for it at start-up.
    """
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read: {exc}") from exc
    except RecursionError:
        raise SettingsError(f"{path}: cannot read: nested too deeply") from None
    return data


def _gradguard_table(path: Path, data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The `[tool.gradguard]` table, `None` when absent; wrong types are a `SettingsError`."""
    tool = data.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise SettingsError(f"{path}: `tool` must be a table")
    table = tool.get("gradguard")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: [tool.gradguard] must be a table")
    return table
