"""`gradguard check` as a user runs it: exit codes, errors, stdin, settings, colour, lsp, rule."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sample_programs import HIDDEN_STATE  # one GG201 finding

from gradguard import __version__
from gradguard.cli import main

Write = Callable[[Path, str | bytes], Path]
# The `gradguard` fixture (tests/cli/conftest.py) returns a `Completed`.
Runner = Callable[..., Any]
CONSOLE_SCRIPT = Path(sys.executable).parent / "gradguard"

CLEAN = "import torch\n\n\ndef f(x):\n    return x * 2\n"
BROKEN = "import torch\nx = (\n"


@pytest.mark.parametrize("module", [False, True])
def test_version(gradguard: Runner, module: bool) -> None:
    result = gradguard("--version", module=module)
    assert result.code == 0
    assert result.stdout == f"gradguard {__version__}\n"


def test_clean_directory_exits_0(gradguard: Runner, tmp_path: Path, write: Write) -> None:
    write(tmp_path / "pkg/clean.py", CLEAN)
    write(tmp_path / "notes.py", "no tensors here\n")
    result = gradguard("check")
    assert (result.code, result.stdout, result.stderr) == (0, "All checks passed!\n", "")


def test_parse_error_is_reported_on_stderr_and_exits_2(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    write(tmp_path / "bad.py", BROKEN)
    write(tmp_path / "good.py", CLEAN)
    result = gradguard("check", ".")
    assert result.code == 2
    assert result.stderr == "bad.py:2:5: error: SyntaxError: '(' was never closed\n"
    assert result.stdout == "Found 0 errors.\n1 file could not be checked (see the errors above).\n"


def test_non_utf8_file_exits_2_and_the_other_files_are_still_checked(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    write(tmp_path / "a_latin1.py", b"import torch\nname = '\xe9'\n")
    write(tmp_path / "b_broken.py", BROKEN)
    result = gradguard("check", ".", "--output-format", "json")
    assert result.code == 2
    assert result.stderr.splitlines() == [
        "a_latin1.py:2:9: error: file is not valid UTF-8 (byte 0xe9: invalid continuation byte)",
        "b_broken.py:2:5: error: SyntaxError: '(' was never closed",
    ]
    assert result.stdout == "[]\n"  # stdout stays valid JSON


def test_missing_path_exits_2(gradguard: Runner, write: Write, tmp_path: Path) -> None:
    write(tmp_path / "ok.py", CLEAN)
    result = gradguard("check", "ok.py", "missing.py")
    assert result.code == 2
    assert result.stderr == "missing.py: error: No such file or directory\n"


def test_no_python_files_is_a_warning(gradguard: Runner, tmp_path: Path, write: Write) -> None:
    write(tmp_path / ".venv/lib/x.py", BROKEN)  # skipped, so never parsed
    result = gradguard("check")
    assert result.code == 0
    assert result.stderr == "warning: No Python files found under the given path(s)\n"


def test_stdin_clean(gradguard: Runner) -> None:
    result = gradguard("check", "-", stdin=CLEAN.encode())
    assert (result.code, result.stdout) == (0, "All checks passed!\n")


def test_stdin_filename_names_the_input(gradguard: Runner) -> None:
    # With --stdin-filename and no PATH, stdin is read.
    result = gradguard("check", "--stdin-filename", "src/model.py", stdin=BROKEN.encode())
    assert result.code == 2
    assert result.stderr == "src/model.py:2:5: error: SyntaxError: '(' was never closed\n"
    plain = gradguard("check", "-", stdin=BROKEN.encode())
    assert plain.stderr == "-:2:5: error: SyntaxError: '(' was never closed\n"


def test_stdin_not_utf8(gradguard: Runner) -> None:
    result = gradguard("check", "-", stdin=b"import torch\n\xff\n")
    assert result.code == 2
    assert result.stderr.startswith("-:2:1: error: file is not valid UTF-8")
    # With --fix the input is passed through untouched, so a pipe never loses the file.
    fixed = gradguard("check", "--fix", "-", stdin=b"import torch\n\xff\n")
    assert fixed.code == 2
    assert fixed.stdout_bytes == b"import torch\n\xff\n"


def test_fix_and_diff_never_touch_an_unparsable_file(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    bad = write(tmp_path / "bad.py", BROKEN)
    before = bad.stat().st_mtime_ns
    for flags in (["--fix"], ["--fix", "--unsafe-fixes"], ["--diff"]):
        result = gradguard("check", *flags, "bad.py")
        assert result.code == 2, flags
        assert "bad.py:2:5: error: SyntaxError" in result.stderr
        assert bad.read_bytes() == BROKEN.encode()
        assert bad.stat().st_mtime_ns == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.py"]


def test_diff_without_changes_exits_0_and_prints_nothing(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    write(tmp_path / "ok.py", CLEAN)
    result = gradguard("check", "--diff", ".")
    assert (result.code, result.stdout, result.stderr) == (0, "", "")


def test_fix_on_stdin_echoes_unchanged_source(gradguard: Runner) -> None:
    source = b"import torch\r\nx = 1\r\n"
    result = gradguard("check", "--fix", "-", stdin=source)
    assert result.code == 0
    assert result.stdout_bytes == source
    assert result.stderr == "All checks passed!\n"


# -- settings -----------------------------------------------------------------------------------


def test_bad_setting_names_file_and_key(gradguard: Runner, tmp_path: Path, write: Write) -> None:
    # One bad value drops only that key: one warning line, and the rest of the table applies.
    write(tmp_path / "pyproject.toml", '[tool.gradguard]\nselect = 5\nignore = ["GG201"]\n')
    write(tmp_path / "src/a.py", HIDDEN_STATE)
    result = gradguard("check", "src")
    assert result.code == 0, result.stdout  # GG201 stays ignored: `ignore` was kept
    assert result.stderr == (
        f"warning: {tmp_path / 'pyproject.toml'}: `select` must be a list of rule codes, "
        "got 5 (ignored)\n"
    )


def test_unknown_setting_is_dropped_with_a_warning(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    write(tmp_path / "pyproject.toml", "[tool.gradguard]\nselekt = ['GG2']\n")
    write(tmp_path / "a.py", CLEAN)
    result = gradguard("check")
    assert result.code == 0
    expected = f"warning: {tmp_path / 'pyproject.toml'}: unknown setting `selekt` (ignored)\n"
    assert result.stderr == expected


def test_bad_severity_value_drops_only_that_entry(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    write(
        tmp_path / "pyproject.toml",
        "[tool.gradguard.severity]\nGG201 = 'loud'\nGG2 = 'hint'\n",
    )
    write(tmp_path / "a.py", HIDDEN_STATE)
    result = gradguard("check", "--output-format", "json")
    assert result.code == 1
    assert result.stderr.count("\n") == 1 and "severity.GG201" in result.stderr
    [finding] = json.loads(result.stdout)
    assert finding["code"] == "GG201" and finding["severity"] == "hint"  # `GG2` was kept


@pytest.mark.parametrize("flag", ["--select", "--ignore"])
def test_bad_code_on_the_command_line_is_a_usage_error(
    flag: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["check", flag, "GG201,not a code", str(tmp_path)]) == 2
    assert "invalid rule code or prefix: 'NOT A CODE'" in capsys.readouterr().err


def test_concise_output_is_one_line_per_finding(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    write(tmp_path / "a.py", HIDDEN_STATE)
    result = gradguard("check", "--output-format", "concise", "a.py")
    assert result.code == 1
    [line, *summary] = result.stdout.splitlines()
    [finding] = json.loads(gradguard("check", "--output-format", "json", "a.py").stdout)
    where = f"a.py:{finding['location']['row']}:{finding['location']['column']}: GG201 "
    assert line.startswith(where) and line.endswith(finding["message"])
    assert summary[0] == "Found 1 error."


def test_unknown_output_format_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--output-format", "xml"]) == 2
    assert "invalid choice: 'xml'" in capsys.readouterr().err


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: gradguard" in capsys.readouterr().err


# -- colour -------------------------------------------------------------------------------------


def run_on_tty(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run the console script with stdout on a pseudo-terminal; return what it printed."""
    leader, follower = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | env
    with subprocess.Popen(
        [str(CONSOLE_SCRIPT), *args],
        cwd=cwd,
        stdout=follower,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=environment,
    ) as proc:
        os.close(follower)
        chunks: list[bytes] = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.wait(timeout=60) == 0
    os.close(leader)
    return b"".join(chunks).decode()


def test_colour_on_a_terminal_unless_no_color(tmp_path: Path, write: Write) -> None:
    write(tmp_path / "a.py", CLEAN)
    assert "\x1b[1mAll checks passed!\x1b[0m" in run_on_tty(["check"], tmp_path, {})
    assert "\x1b[" not in run_on_tty(["check"], tmp_path, {"NO_COLOR": "1"})


def test_no_colour_when_piped(gradguard: Runner, tmp_path: Path, write: Write) -> None:
    write(tmp_path / "a.py", CLEAN)
    assert "\x1b[" not in gradguard("check").stdout


# -- rule -----------------------------------------------------------------------------------------


def test_unknown_rule_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "GG999"]) == 2
    assert "unknown rule 'GG999'" in capsys.readouterr().err


def test_rule_list_is_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    from gradguard.core.rule import all_rules

    assert main(["rule", "--all"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["CODE", "NAME", "SEVERITY", "SUMMARY"]
    assert [line.split()[0] for line in lines[1:]] == [r.code for r in all_rules()]
    assert main(["rule"]) == 0
    assert capsys.readouterr().out.splitlines() == lines


# -- lsp ------------------------------------------------------------------------------------------


def test_lsp_passes_tcp_to_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str | None] = []
    fake = types.ModuleType("gradguard.lsp.server")
    fake.start = calls.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gradguard.lsp.server", fake)
    assert main(["lsp"]) == 0
    assert main(["lsp", "--tcp", "127.0.0.1:2087"]) == 0
    assert calls == [None, "127.0.0.1:2087"]


def test_lsp_import_failure_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `None` in sys.modules makes the import raise ImportError, as a missing pygls would.
    monkeypatch.setitem(sys.modules, "gradguard.lsp.server", None)
    assert main(["lsp"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the GradGuard language server is not available")


@pytest.mark.parametrize("value", ["2087", "localhost:", ":2087", "host:99999", "host:port"])
def test_lsp_tcp_must_be_host_port(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lsp", "--tcp", value]) == 2
    assert "expected HOST:PORT" in capsys.readouterr().err


def test_unparsable_pyproject_stops_the_run(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    write(tmp_path / "pyproject.toml", "[tool.gradguard\nselect = 1\n")
    write(tmp_path / "a.py", CLEAN)
    result = gradguard("check")
    assert result.code == 2
    assert result.stderr.startswith(f"error: {tmp_path / 'pyproject.toml'}: cannot read:")


def test_pyproject_without_a_gradguard_table_is_passed_over(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    write(tmp_path / "pyproject.toml", "[tool.gradguard]\nselect = 1\n")  # a bad value
    write(tmp_path / "sub/pyproject.toml", '[project]\nname = "x"\n')
    write(tmp_path / "sub/a.py", CLEAN)
    outer = gradguard("check", "sub")  # the outer table applies: its bad key is named
    assert outer.code == 0 and f"{tmp_path / 'pyproject.toml'}: `select`" in outer.stderr
    write(tmp_path / "pyproject.toml", '[tool.gradguard]\nselect = ["GG1"]\n')
    assert gradguard("check", "sub").code == 0


def test_a_selector_that_matches_no_rule_is_a_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, write: Write
) -> None:
    write(tmp_path / "a.py", CLEAN)
    assert main(["check", "--select", "GG9,GG1", "--ignore", "XY1", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "warning: `GG9` matches no GradGuard rule",
        "warning: `XY1` matches no GradGuard rule",
    ]
