"""Which settings a checked file gets: nearest `[tool.gradguard]`, then the command line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gradguard.cli import SettingsResolver
from gradguard.core.findings import Severity
from gradguard.core.settings import SettingsError

Write = Callable[[Path, str | bytes], Path]

PROJECT = """\
[project]
name = "demo"

[tool.gradguard]
select = ["GG1", "GG2"]
ignore = ["GG201"]
unsafe-fixes = true

[tool.gradguard.per-file-ignores]
"tests/*.py" = ["GG102"]

[tool.gradguard.severity]
GG101 = "warning"
"""


@pytest.fixture
def project(tmp_path: Path, write: Write) -> Path:
    write(tmp_path / "pyproject.toml", PROJECT)
    write(tmp_path / "src/pkg/train.py", "import torch\n")
    return tmp_path


def test_file_settings_apply_without_flags(project: Path) -> None:
    settings = SettingsResolver().for_file(project / "src/pkg/train.py")
    assert settings.source == project / "pyproject.toml"
    assert settings.select == ("GG1", "GG2")
    assert settings.ignore == ("GG201",)
    assert settings.unsafe_fixes is True
    assert settings.severity_for("GG101", Severity.ERROR) is Severity.WARNING
    assert not settings.is_enabled("GG201", "src/pkg/train.py")
    assert settings.is_enabled("GG102", "src/pkg/train.py")
    assert not settings.is_enabled("GG102", str(project / "tests/test_x.py"))


def test_select_on_the_command_line_starts_a_fresh_selection(project: Path) -> None:
    settings = SettingsResolver(select=("GG201",)).for_file(project / "src/pkg/train.py")
    assert settings.select == ("GG201",)
    assert settings.ignore == ()  # the file's `ignore` belonged to the file's `select`
    assert settings.is_enabled("GG201")
    assert not settings.is_enabled("GG101")
    # per-file-ignores and severities still come from the file
    assert settings.severity_for("GG101", Severity.ERROR) is Severity.WARNING


def test_ignore_alone_extends_the_files_ignore(project: Path) -> None:
    settings = SettingsResolver(ignore=("GG101",)).for_file(project / "src/pkg/train.py")
    assert settings.select == ("GG1", "GG2")
    assert settings.ignore == ("GG201", "GG101")


def test_select_and_ignore_together(project: Path) -> None:
    settings = SettingsResolver(select=("GG2",), ignore=("GG202",)).for_file(
        project / "src/pkg/train.py"
    )
    assert (settings.select, settings.ignore) == (("GG2",), ("GG202",))
    assert settings.is_enabled("GG201")
    assert not settings.is_enabled("GG202")


@pytest.mark.parametrize(("flag", "expected"), [(None, True), (True, True), (False, False)])
def test_unsafe_fixes_flag_wins_over_the_file(
    project: Path, flag: bool | None, expected: bool
) -> None:
    resolver = SettingsResolver(unsafe_fixes=flag)
    assert resolver.for_file(project / "src/pkg/train.py").unsafe_fixes is expected


def test_nearest_gradguard_table_wins(project: Path, write: Write) -> None:
    # A nested pyproject.toml without [tool.gradguard] does not hide the outer one...
    write(project / "src/pyproject.toml", '[project]\nname = "inner"\n')
    resolver = SettingsResolver()
    assert resolver.for_file(project / "src/pkg/train.py").source == project / "pyproject.toml"
    # ...but one with the table does (a fresh resolver: answers are cached per run).
    write(project / "src/pkg/pyproject.toml", '[tool.gradguard]\nselect = ["GG3"]\n')
    nested = SettingsResolver().for_file(project / "src/pkg/train.py")
    assert nested.source == project / "src/pkg/pyproject.toml"
    assert nested.select == ("GG3",)


def test_no_pyproject_means_defaults(tmp_path: Path) -> None:
    settings = SettingsResolver(ignore=("GG1",)).for_file(tmp_path / "a.py")
    assert settings.source is None
    assert settings.select == ("ALL",)
    assert settings.ignore == ("GG1",)


def test_bad_value_drops_only_that_key(tmp_path: Path, write: Write) -> None:
    write(
        tmp_path / "pyproject.toml",
        "[tool.gradguard]\nunsafe-fixes = 'yes'\nignore = ['GG2']\n"
        "[tool.gradguard.severity]\nGG101 = 'loud'\nGG102 = 'hint'\n",
    )
    resolver = SettingsResolver()
    settings = resolver.for_file(tmp_path / "a.py")
    resolver.for_file(tmp_path / "b.py")  # the same file's problems are listed once
    assert settings.ignore == ("GG2",) and settings.unsafe_fixes is False
    assert dict(settings.severity) == {"GG102": Severity.HINT}
    assert resolver.problems == [
        f"{tmp_path / 'pyproject.toml'}: `unsafe-fixes` must be true or false, got 'yes'",
        f"{tmp_path / 'pyproject.toml'}: `severity.GG101` must be one of "
        "error, warning, info, hint, got 'loud'",
    ]


def test_an_unparsable_file_is_still_an_error(tmp_path: Path, write: Write) -> None:
    write(tmp_path / "pyproject.toml", "[tool.gradguard\n")
    write(tmp_path / "sub/pyproject.toml", "[tool]\ngradguard = 3\n")
    with pytest.raises(SettingsError, match="cannot read"):
        SettingsResolver().for_file(tmp_path / "a.py")
    with pytest.raises(SettingsError, match=r"\[tool.gradguard\] must be a table"):
        SettingsResolver().for_file(tmp_path / "sub/a.py")
