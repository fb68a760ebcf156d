"""The settings half of the shared workspace pipeline (`gradguard.workspace`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradguard.core.findings import Severity
from gradguard.core.settings import Settings, SettingsError, parse_settings_leniently
from gradguard.workspace import Overrides, ProjectSettings

PROJECT = Settings(
    select=("GG1", "GG2"),
    ignore=("GG201",),
    severity={"GG101": Severity.WARNING},
    unsafe_fixes=True,
)


def test_ignore_alone_extends_and_select_starts_afresh() -> None:
    assert Overrides(ignore=("GG102",)).apply(PROJECT).ignore == ("GG201", "GG102")
    fresh = Overrides(select=("ALL",)).apply(PROJECT)
    assert fresh.select == ("ALL",) and fresh.ignore == ()
    both = Overrides(select=("GG2",), ignore=("GG202",)).apply(PROJECT)
    assert both.select == ("GG2",) and both.ignore == ("GG202",)
    assert Overrides().apply(PROJECT) == PROJECT


def test_severity_entries_replace_the_projects_code_by_code() -> None:
    merged = Overrides(severity={"GG201": Severity.HINT}).apply(PROJECT)
    assert dict(merged.severity) == {"GG101": Severity.WARNING, "GG201": Severity.HINT}
    assert Overrides(unsafe_fixes=False).apply(PROJECT).unsafe_fixes is False


def test_lenient_parsing_keeps_every_good_key_and_entry() -> None:
    settings, problems = parse_settings_leniently(
        {
            "select": 5,
            "ignore": ["gg2"],
            "per-file-ignores": {"tests/*": ["GG1"], "docs/*": 3},
            "bogus": True,
        }
    )
    assert settings.select == ("ALL",) and settings.ignore == ("GG2",)
    assert dict(settings.per_file_ignores) == {"tests/*": ("GG1",)}
    assert len(problems) == 3
    assert any("per-file-ignores.docs/*" in p for p in problems)
    assert any("unknown setting `bogus`" in p for p in problems)


def test_project_settings_come_from_the_nearest_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.gradguard]\nignore = ["GG1"]\n')
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "pyproject.toml").write_text('[project]\nname = "lib"\n')
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "pyproject.toml").write_text("[tool.gradguard]\nselect = 1\n")
    project = ProjectSettings()
    assert project.for_file(tmp_path / "lib" / "a.py").settings.ignore == ("GG1",)
    app = project.for_file(tmp_path / "app" / "a.py")
    assert app.source == tmp_path / "app" / "pyproject.toml"
    assert app.settings.select == ("ALL",) and len(app.problems) == 1
    (tmp_path / "app" / "pyproject.toml").write_text("[tool.gradguard\n")
    assert len(project.for_file(tmp_path / "app" / "b.py").problems) == 1  # cached
    with pytest.raises(SettingsError, match="cannot read"):
        ProjectSettings().for_file(tmp_path / "app" / "b.py")  # a fresh resolver re-reads
