"""`gradguard check` on real findings of the real rules: reports, --fix, --diff, settings.

The inputs are the rules' own INVALID examples (with their expected fixes), so these tests
follow the rules as they evolve.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from gradguard.cli import main
from gradguard.core.engine import check_source
from gradguard.core.findings import Finding, Fix, Position, Range, Safety, TextEdit
from gradguard.core.rule import Invalid, Rule, RuleContext, all_rules, rule_by_code
from gradguard.core.settings import Settings

Write = Callable[[Path, str | bytes], Path]
Runner = Callable[..., Any]


def example(code: str, *, unsafe: bool) -> Invalid:
    """The first INVALID example of rule `code` whose fix has the given safety."""
    rule = rule_by_code(code)
    assert rule is not None
    for invalid in rule.invalid:
        if invalid.fixed is not None and invalid.unsafe_fix is unsafe:
            return invalid
    raise AssertionError(f"{code} has no {'unsafe' if unsafe else 'safe'} fix example")


SAFE = example("GG201", unsafe=False)
UNSAFE = example("GG101", unsafe=True)


def only_finding(text: str, code: str) -> Finding:
    [finding] = check_source(text, settings=Settings(select=(code,))).findings
    return finding


FIXABLE = [
    pytest.param(rule.code, invalid, id=f"{rule.code}-{index}")
    for rule in all_rules()
    for index, invalid in enumerate(rule.invalid)
    if invalid.fixed is not None
]


def test_every_rule_has_a_fix_example() -> None:
    assert {p.values[0] for p in FIXABLE} >= {"GG101", "GG102", "GG201"}


@pytest.mark.parametrize(("code", "invalid"), FIXABLE)
def test_fix_writes_the_rules_expected_fix(
    gradguard: Runner, tmp_path: Path, write: Write, code: str, invalid: Invalid
) -> None:
    target = write(tmp_path / "train.py", invalid.code)
    flags = ["--unsafe-fixes"] if invalid.unsafe_fix else []
    result = gradguard("check", "--fix", *flags, "--select", code, "train.py")
    assert target.read_text() == invalid.fixed
    assert result.code == 0, result.stdout + result.stderr
    assert re.fullmatch(r"Found \d+ errors? \(\d+ fixed, 0 remaining\)\.\n", result.stdout)


@pytest.mark.parametrize(("code", "invalid"), FIXABLE)
def test_fix_keeps_crlf_and_bom(
    gradguard: Runner, tmp_path: Path, write: Write, code: str, invalid: Invalid
) -> None:
    assert invalid.fixed is not None
    bom = b"\xef\xbb\xbf"
    target = write(tmp_path / "train.py", bom + invalid.code.replace("\n", "\r\n").encode())
    flags = ["--unsafe-fixes"] if invalid.unsafe_fix else []
    result = gradguard("check", "--fix", *flags, "--select", code, "train.py")
    assert result.code == 0, result.stdout + result.stderr
    assert target.read_bytes() == bom + invalid.fixed.replace("\n", "\r\n").encode()


def test_fix_keeps_permission_bits(gradguard: Runner, tmp_path: Path, write: Write) -> None:
    target = write(tmp_path / "train.py", SAFE.code)
    os.chmod(target, 0o750)
    assert gradguard("check", "--fix", "train.py").code == 0
    assert target.read_text() == SAFE.fixed
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]


def test_unsafe_fix_needs_the_flag(gradguard: Runner, tmp_path: Path, write: Write) -> None:
    target = write(tmp_path / "train.py", UNSAFE.code)
    result = gradguard("check", "--fix", "--select", "GG101", "train.py")
    assert result.code == 1
    assert target.read_text() == UNSAFE.code
    assert "(unsafe fix available, use --unsafe-fixes)" in result.stdout
    assert result.stdout.endswith(
        "Found 1 error.\n1 hidden fix can be enabled with the --unsafe-fixes option.\n"
    )
    # pyproject.toml can opt in; --no-unsafe-fixes opts out again.
    write(tmp_path / "pyproject.toml", "[tool.gradguard]\nunsafe-fixes = true\n")
    assert gradguard("check", "--fix", "--no-unsafe-fixes", "train.py").code == 1
    assert target.read_text() == UNSAFE.code
    assert gradguard("check", "--fix", "train.py").code == 0
    assert target.read_text() == UNSAFE.fixed


@pytest.mark.parametrize(
    "suffix", ["", "# a form feed \x0c and U+2028 \u2028 are not line breaks\n"]
)
def test_diff_prints_the_fix_and_writes_nothing(
    gradguard: Runner, tmp_path: Path, write: Write, suffix: str
) -> None:
    assert SAFE.fixed is not None
    # The suffix lands in the hunk's context lines, right after the fixed line.
    target = write(tmp_path / "train.py", SAFE.code + suffix)
    before = (target.read_bytes(), target.stat().st_mtime_ns)
    result = gradguard("check", "--diff", "train.py")
    assert result.code == 1
    assert (target.read_bytes(), target.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]
    assert result.stdout.startswith("--- train.py\n+++ train.py\n@@ ")
    assert result.stderr == "Would fix 1 error.\n"
    # The diff is a real patch: applied to a copy it gives exactly what --fix writes.
    git = shutil.which("git")
    assert git is not None, "git is needed to apply the diff"
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "train.py").write_bytes(before[0])
    subprocess.run([git, "apply", "-"], cwd=copy, input=result.stdout.encode(), check=True)
    assert (copy / "train.py").read_bytes() == (SAFE.fixed + suffix).encode()


def test_fix_checks_the_other_files_when_some_cannot_be_read(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    fixable = write(tmp_path / "a_fixable.py", SAFE.code)
    latin1 = write(tmp_path / "b_latin1.py", b"import torch\nname = '\xe9'\n")
    broken = write(tmp_path / "c_broken.py", "import torch\nx = (\n")
    unsafe = write(tmp_path / "d_unsafe.py", UNSAFE.code)
    result = gradguard("check", "--fix", ".")
    assert result.code == 2
    assert result.stderr.splitlines() == [
        "b_latin1.py:2:9: error: file is not valid UTF-8 (byte 0xe9: invalid continuation byte)",
        "c_broken.py:2:5: error: SyntaxError: '(' was never closed",
    ]
    assert fixable.read_text() == SAFE.fixed
    assert latin1.read_bytes() == b"import torch\nname = '\xe9'\n"
    assert broken.read_text() == "import torch\nx = (\n"
    assert unsafe.read_text() == UNSAFE.code
    assert result.stdout.startswith("d_unsafe.py:")
    assert "Found 2 errors (1 fixed, 1 remaining).\n" in result.stdout


def test_fix_refuses_a_result_that_does_not_parse(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    write: Write,
) -> None:
    """Even if a fix went wrong in the engine, the CLI does not write unparsable code."""
    import gradguard.core.engine as engine

    real_fix_source = engine.fix_source

    def broken_fix_source(text: str, **kwargs: Any) -> engine.FixResult:
        result = real_fix_source(text, **kwargs)
        return engine.FixResult(result.text + "def (:\n", result.applied, result.remaining)

    monkeypatch.setattr(engine, "fix_source", broken_fix_source)
    target = write(tmp_path / "train.py", SAFE.code)
    assert main(["check", "--fix", str(target)]) == 2
    err = capsys.readouterr().err
    assert "a fix produced code that does not parse; not written" in err
    assert target.read_text() == SAFE.code


class _BrokenFixRule(Rule):
    """Flags the first line and offers a fix that does not parse (a stand-in builder bug)."""

    code = "GG998"
    name = "broken-fix"
    summary = "test stand-in"

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        line = 1 if ctx.source.line(0).strip() == "" else 0
        rng = Range(Position(line, 0), Position(line, len(ctx.source.line(line))))
        fix = Fix("break it", Safety.SAFE, (TextEdit(rng, "import (torch"),))
        yield self.finding("stand-in finding", rng, (), [fix])


def test_a_fix_that_does_not_parse_is_neither_counted_nor_applied(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    write: Write,
) -> None:
    """Issue 11: `--fix` used to drop every fix of the file, yet print "[*] 2 fixable"."""
    import gradguard.core.engine as engine

    rules = (*all_rules(), _BrokenFixRule())
    monkeypatch.setattr(engine, "all_rules", lambda: rules)
    target = write(tmp_path / "train.py", SAFE.code)
    assert main(["check", str(target)]) == 1
    out = capsys.readouterr().out
    assert out.endswith("Found 2 errors.\n[*] 1 fixable with the --fix option.\n"), out
    assert main(["check", "--fix", str(target)]) == 1
    out = capsys.readouterr().out
    assert target.read_text() == SAFE.fixed  # the other file's fix is applied
    assert out.endswith("Found 2 errors (1 fixed, 1 remaining).\n"), out


def test_stdin_fix_prints_the_fixed_source(gradguard: Runner) -> None:
    assert SAFE.fixed is not None
    bom = b"\xef\xbb\xbf"
    source = bom + SAFE.code.replace("\n", "\r\n").encode()
    result = gradguard("check", "--fix", "--stdin-filename", "train.py", "-", stdin=source)
    assert result.code == 0
    assert result.stdout_bytes == bom + SAFE.fixed.replace("\n", "\r\n").encode()
    assert result.stderr == "Found 1 error (1 fixed, 0 remaining).\n"


def test_stdin_diff(gradguard: Runner) -> None:
    result = gradguard("check", "--diff", "-", stdin=SAFE.code.encode())
    assert result.code == 1
    assert result.stdout.startswith("--- -\n+++ -\n")
    assert "+    h = h_next.detach()\n" in result.stdout


# -- reports of a real finding -----------------------------------------------------------------


def test_findings_exit_1_with_text_report(gradguard: Runner, tmp_path: Path, write: Write) -> None:
    write(tmp_path / "pkg/train.py", SAFE.code)
    finding = only_finding(SAFE.code, "GG201")
    result = gradguard("check")
    assert result.code == 1
    start = finding.range.start
    assert result.stdout.startswith(
        f"pkg/train.py:{start.line + 1}:{start.character + 1}: GG201 {finding.message}\n"
    )
    assert f"= help: [*] {finding.fixes[0].title}\n" in result.stdout
    assert result.stdout.endswith("Found 1 error.\n[*] 1 fixable with the --fix option.\n")


def test_json_report_of_a_real_finding(gradguard: Runner, tmp_path: Path, write: Write) -> None:
    write(tmp_path / "train.py", SAFE.code)
    finding = only_finding(SAFE.code, "GG201")
    result = gradguard("check", "--output-format", "json")
    assert result.code == 1
    [item] = json.loads(result.stdout)
    assert item["code"] == "GG201"
    assert item["name"] == "hidden-state-not-detached"
    assert item["severity"] == "error"
    assert item["message"] == finding.message
    assert item["filename"] == "train.py"
    assert item["location"] == {
        "row": finding.range.start.line + 1,
        "column": finding.range.start.character + 1,
    }
    assert item["end_location"] == {
        "row": finding.range.end.line + 1,
        "column": finding.range.end.character + 1,
    }
    assert item["noqa_row"] == finding.range.start.line + 1
    assert item["url"] == finding.url
    fix = finding.fixes[0]
    assert item["fix"]["applicability"] == "safe"
    assert item["fix"]["message"] == fix.title
    assert [e["content"] for e in item["fix"]["edits"]] == [e.new_text for e in fix.edits]
    assert [r["message"] for r in item["related"]] == [r.message for r in finding.related]


def test_sarif_report_of_a_real_finding(gradguard: Runner, tmp_path: Path, write: Write) -> None:
    write(tmp_path / "src/train.py", SAFE.code)
    finding = only_finding(SAFE.code, "GG201")
    result = gradguard("check", "--output-format", "sarif", "src")
    assert result.code == 1
    [run] = json.loads(result.stdout)["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.code for r in all_rules()]
    [sarif_result] = run["results"]
    rule = rules[sarif_result["ruleIndex"]]
    assert rule["id"] == sarif_result["ruleId"] == "GG201"
    assert rule["name"] == "hidden-state-not-detached"
    assert rule["shortDescription"]["text"]
    assert rule["helpUri"] == finding.url
    location = sarif_result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/train.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"]["startLine"] == finding.range.start.line + 1
    assert location["region"]["startColumn"] == finding.range.start.character + 1
    assert len(sarif_result["relatedLocations"]) == len(finding.related)


def test_github_report_of_a_real_finding(gradguard: Runner, tmp_path: Path, write: Write) -> None:
    write(tmp_path / "train.py", SAFE.code)
    finding = only_finding(SAFE.code, "GG201")
    result = gradguard("check", "--output-format", "github")
    start, end = finding.range.start, finding.range.end
    assert result.stdout == (
        f"::error title=GradGuard (GG201),file=train.py,line={start.line + 1},"
        f"col={start.character + 1},endLine={end.line + 1},endColumn={end.character + 1}"
        f"::GG201 {finding.message}\n"
    )


def test_noqa_silences_a_finding(gradguard: Runner, tmp_path: Path, write: Write) -> None:
    finding = only_finding(SAFE.code, "GG201")
    lines = SAFE.code.split("\n")
    lines[finding.range.start.line] += "  # noqa: GG201"
    write(tmp_path / "train.py", "\n".join(lines))
    assert gradguard("check").code == 0


# -- settings end to end -----------------------------------------------------------------------


def test_pyproject_and_command_line_precedence(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    write(tmp_path / "src/train.py", SAFE.code)
    write(tmp_path / "pyproject.toml", '[tool.gradguard]\nignore = ["GG201"]\n')
    assert gradguard("check").code == 0
    # --select on the command line starts a fresh selection: GG201 is back.
    assert gradguard("check", "--select", "GG2").code == 1
    assert gradguard("check", "--select", "GG2", "--ignore", "GG201").code == 0
    # The settings are found from the file's directory, not the working directory.
    assert gradguard("check", "train.py", cwd=tmp_path / "src").code == 0


def test_per_file_ignores_and_severity(gradguard: Runner, tmp_path: Path, write: Write) -> None:
    write(tmp_path / "src/train.py", SAFE.code)
    write(tmp_path / "tests/test_train.py", SAFE.code)
    write(
        tmp_path / "pyproject.toml",
        '[tool.gradguard.per-file-ignores]\n"tests/*" = ["GG2"]\n'
        '[tool.gradguard.severity]\nGG201 = "warning"\n',
    )
    result = gradguard("check", "--output-format", "json")
    assert result.code == 1
    items = json.loads(result.stdout)
    assert [(i["filename"], i["severity"]) for i in items] == [("src/train.py", "warning")]
    github = gradguard("check", "--output-format", "github")
    assert github.stdout.startswith("::warning title=GradGuard (GG201),file=src/train.py,")


def test_stdin_filename_selects_per_file_ignores(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    write(tmp_path / "pyproject.toml", '[tool.gradguard.per-file-ignores]\n"tests/*" = ["GG2"]\n')
    stdin = SAFE.code.encode()
    assert gradguard("check", "--stdin-filename", "tests/t.py", "-", stdin=stdin).code == 0
    assert gradguard("check", "--stdin-filename", "src/t.py", "-", stdin=stdin).code == 1


# -- rule ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["GG201", "gg201", "hidden-state-not-detached"])
def test_rule_prints_docs(gradguard: Runner, name: str) -> None:
    rule = rule_by_code("GG201")
    assert rule is not None
    result = gradguard("rule", name)
    assert result.code == 0
    assert result.stdout.startswith("# hidden-state-not-detached (GG201)\n")
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert heading in result.stdout
    assert rule.docs in result.stdout


def test_rule_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "GG101", "--output-format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["code"], data["name"]) == ("GG101", "backward-under-no-grad")
    assert "## Fix safety" in data["explanation"]


# -- robustness --------------------------------------------------------------------------------


def test_a_crashing_rule_is_reported_and_the_other_rules_still_run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    write: Write,
) -> None:
    rule = rule_by_code("GG201")
    assert rule is not None

    def crash(self: object, ctx: object) -> list[Finding]:
        raise RuntimeError("boom")

    monkeypatch.setattr(type(rule), "check", crash)
    write(tmp_path / "a.py", SAFE.code)
    write(tmp_path / "b.py", UNSAFE.code)
    assert main(["check", "--output-format", "json", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert [i["code"] for i in json.loads(out)] == ["GG101"]
    assert "a.py: error: rule GG201 crashed: RuntimeError: boom" in err


def test_an_internal_error_on_one_file_does_not_stop_the_run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    write: Write,
) -> None:
    import gradguard.core.engine as engine

    real_check_source = engine.check_source

    def flaky_check_source(text: str, **kwargs: Any) -> engine.CheckResult:
        if "inference_mode" in text:
            raise RecursionError("too deep")
        return real_check_source(text, **kwargs)

    monkeypatch.setattr(engine, "check_source", flaky_check_source)
    write(tmp_path / "a.py", SAFE.code)
    write(tmp_path / "b.py", UNSAFE.code)
    assert main(["check", "--output-format", "json", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert [i["code"] for i in json.loads(out)] == ["GG201"]
    assert "b.py: error: internal error: RecursionError: too deep (please report)" in err
