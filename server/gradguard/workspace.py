"""The workspace pipeline shared by `gradguard check` and the language server.

Both front ends answer the same three questions the same way:

* which files: `source_files` (`*.py` and `*.ipynb`, skip lists, `.gitignore`; see
  `gradguard.files.discover`);
* what text: `gradguard.file_check.read` (BOM, PEP 263 coding cookies, notebooks' cells);
* which settings: `ProjectSettings` finds the nearest `pyproject.toml` with a
  `[tool.gradguard]` table, and `Overrides` lays the command line's flags or the editor's
  settings on top.

Precedence: defaults < nearest `pyproject.toml` < editor settings (language server) or
command-line flags (`gradguard check`). `select` starts a fresh selection (the file's
`select` and `ignore` are replaced); `ignore` alone extends the file's `ignore`;
`severity` entries replace the file's entry for the same code; `unsafe_fixes` wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from gradguard.core.settings import (
    Settings,
    SettingsError,
    load_pyproject_leniently,
    nearest_settings_file,
)
from gradguard.files import Discovery, discover

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from gradguard.core.findings import Severity


def source_files(paths: Sequence[str]) -> Discovery:
    """The files GradGuard checks under `paths` (files named directly are always taken)."""
    return discover(paths)


@dataclass(frozen=True)
class ProjectConfig:
    """The settings a `pyproject.toml` gives, and the keys it dropped (one message each)."""

    settings: Settings
    problems: tuple[str, ...] = ()

    @property
    def source(self) -> Path | None:
        """The `pyproject.toml` the settings come from (`None`: the defaults)."""
        return self.settings.source


@dataclass
class ProjectSettings:
    """The nearest `[tool.gradguard]` for each file, cached per directory and per file.

    A nearest `pyproject.toml` that cannot be parsed at all raises `SettingsError` (each
    time it is asked for): silently taking a file further up would change which rules run.
    A `pyproject.toml` without a `[tool.gradguard]` table is passed over.
    """

    _nearest: dict[Path, Path | None] = field(default_factory=dict)
    _loaded: dict[Path, ProjectConfig | SettingsError] = field(default_factory=dict)

    def for_file(self, path: Path) -> ProjectConfig:
        """The project settings that apply to the file at `path`."""
        return self.for_directory(path.absolute().parent)

    def for_directory(self, directory: Path) -> ProjectConfig:
        """The project settings that apply to files in `directory`."""
        pyproject = self._find(directory)
        if pyproject is None:
            return ProjectConfig(Settings())
        loaded = self._loaded.get(pyproject)
        if loaded is None:
            try:
                settings, problems = load_pyproject_leniently(pyproject)
                loaded = ProjectConfig(settings, tuple(problems))
            except SettingsError as exc:
                loaded = exc
            self._loaded[pyproject] = loaded
        if isinstance(loaded, SettingsError):
            raise loaded
        return loaded

    def _find(self, directory: Path) -> Path | None:
        # Only directories that hold a pyproject.toml are parsed; the answer is cached for
        # every directory on the way, so a large tree costs one look-up per pyproject.
        chain: list[Path] = []
        result: Path | None = None
        for folder in (directory, *directory.parents):
            if folder in self._nearest:
                result = self._nearest[folder]
                break
            chain.append(folder)
            if (folder / "pyproject.toml").is_file():
                try:
                    result = nearest_settings_file(folder)
                except SettingsError:
                    result = folder / "pyproject.toml"  # loading it reports the problem
                break
        for folder in chain:
            self._nearest[folder] = result
        return result


@dataclass(frozen=True)
class Overrides:
    """Settings laid over a file's: the command line's flags or the editor's settings.

    `None` leaves the file's value. `select` starts a fresh selection (the file's `select`
    and `ignore` are replaced by these); `ignore` alone extends the file's `ignore` (like
    ruff's `extend-ignore`); `severity` replaces the file's entries code by code.
    """

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    severity: Mapping[str, Severity] | None = None
    unsafe_fixes: bool | None = None

    def apply(self, settings: Settings) -> Settings:
        """`settings` with these overrides laid on top."""
        if self.select is not None:
            settings = replace(settings, select=self.select, ignore=self.ignore or ())
        elif self.ignore is not None:
            settings = replace(settings, ignore=settings.ignore + self.ignore)
        if self.severity:
            settings = replace(settings, severity={**settings.severity, **self.severity})
        if self.unsafe_fixes is not None:
            settings = replace(settings, unsafe_fixes=self.unsafe_fixes)
        return settings
