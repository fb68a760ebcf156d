"""Hostile and odd documents through the engine: it answers, it never raises, positions stay exact.

Everything an editor can send: NUL bytes, huge files and lines, pathological nesting, every
line-ending convention, a BOM, tabs, non-ASCII text before a diagnostic, Python 2, nothing.
"""

from __future__ import annotations

import textwrap
import warnings

import pytest
from invariants.checks import assert_result_well_formed, check_everything

from gradguard.core.engine import CheckResult, check_source, fix_source
from gradguard.core.findings import Finding
from gradguard.core.text import SourceText

HEADER = "import torch\nfrom torch import nn\nmodel = nn.Linear(3, 1)\n"
# GG101: the `with` line is the finding, the backward() call its related location.
NO_GRAD_BUG = "with torch.no_grad():\n    loss = model(torch.randn(2, 3)).sum()\nloss.backward()\n"
BUGGY = HEADER + NO_GRAD_BUG
BUG_LINE = 3  # the `with` line of BUGGY

# Generous: a hang detector, not a timing assertion.
HANG_TIMEOUT = 120


def _check(text: str) -> CheckResult:
    result = check_source(text)
    assert_result_well_formed(text, result)
    return result


def _only(result: CheckResult, code: str = "GG101") -> Finding:
    assert result.parse_error is None, result.parse_error
    (finding,) = result.findings
    assert finding.code == code
    return finding


# -- bytes an editor should never send, but does ------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        HEADER + "x = 1\x00\n" + NO_GRAD_BUG,
        "\x00" + BUGGY,
        BUGGY + "\x00",
        HEADER + "s = '\x00'\n" + NO_GRAD_BUG,
        HEADER + "# \x00 in a comment\n" + NO_GRAD_BUG,
    ],
    ids=["code", "start", "end", "string", "comment"],
)
def test_nul_bytes_are_a_parse_error_inside_the_file(text: str) -> None:
    result = _check(text)
    assert result.parse_error is not None
    assert "null bytes" in result.parse_error.message
    assert result.findings == ()
    assert fix_source(text, unsafe=True).text == text


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n",
        "\r\n\r\n",
        "\ufeff",
        "# torch\n# only comments about torch\n",
        "# torch",
        "import torch",
        "'''torch'''",
        " \t \n",
    ],
)
def test_empty_and_comment_only_files_have_nothing_to_report(text: str) -> None:
    result = _check(text)
    assert result.findings == ()
    assert result.parse_error is None
    assert fix_source(text, unsafe=True).text == text


@pytest.mark.parametrize(
    "text",
    [
        'import torch\nprint "loss", loss\n',
        "import torch\nexec code in ns\n",
        "import torch\ntry:\n    pass\nexcept ValueError, e:\n    pass\n",
        "import torch\nx = `loss`\n",
        "import torch\nx = 0777\n",
        "import torch\nraise ValueError, 'bad'\n",
        "import torch\nif x <> y:\n    pass\n",
        "import torch\ndef f((a, b)):\n    pass\n",
        "import torch\nx = ur'torch'\n",
    ],
)
def test_python_2_is_a_parse_error_on_the_offending_line(text: str) -> None:
    result = _check(text)
    assert result.parse_error is not None
    assert result.parse_error.message.startswith("SyntaxError")
    assert result.parse_error.range.start.line >= 1
    assert fix_source(text, unsafe=True).text == text


def test_a_file_with_an_invalid_escape_is_checked_even_when_warnings_are_errors() -> None:
    # `"\d"` is only a warning; a host with `-W error` (pytest configs, PYTHONWARNINGS) must
    # not turn it into "cannot parse", nor should the CLI print SyntaxWarnings for user files.
    text = HEADER + 'pattern = "\\d+"\n' + NO_GRAD_BUG
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = check_source(text)
    assert result.parse_error is None
    assert [f.code for f in result.findings] == ["GG101"]


# -- size -------------------------------------------------------------------------------------

# The 100,000-line file goes through the CLI: tests/bad_input/test_cli_bad_input.py.


@pytest.mark.parametrize(
    "line",
    [
        "blob = '" + "x" * 10_000_000 + "'",
        "blob = b'" + "\\x00" * 2_500_000 + "'",
        "# " + "torch " * 1_700_000,
    ],
    ids=["string", "escaped-bytes", "comment"],
)
def test_a_single_10_mb_line_before_a_diagnostic(line: str) -> None:
    assert len(line) >= 10_000_000
    text = HEADER + line + "\n" + NO_GRAD_BUG
    finding = _only(_check(text))
    assert finding.range.start.line == BUG_LINE + 1


def test_a_megabyte_line_of_code_completes() -> None:
    # Every element is an `ast` node: this is the expensive kind of long line.
    line = "weights = [" + "0.5, " * 200_000 + "]"
    finding = _only(_check(HEADER + line + "\n" + NO_GRAD_BUG))
    assert finding.range.start.line == BUG_LINE + 1


# -- nesting ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "snippet",
    [
        "x = " + "(" * 500 + "1" + ")" * 500,
        "x = " + "[" * 500 + "]" * 500,
        "".join("    " * i + f"if c{i}:\n" for i in range(500)) + "    " * 500 + "pass",
        "y = " + " + ".join(["a"] * 100_000),
        "y = " + "-" * 100_000 + "x",
        "y = " + "not " * 50_000 + "x",
        "y = x" + ".detach()" * 20_000,
        "if a:\n    pass\n" + "".join(f"elif b{i}:\n    pass\n" for i in range(20_000)),
    ],
    ids=["parens", "lists", "ifs", "sum", "unary", "not", "method-chain", "elif-chain"],
)
def test_pathological_nesting_is_a_clear_error_not_a_crash(snippet: str) -> None:
    text = HEADER + snippet + "\n" + NO_GRAD_BUG
    result = _check(text)
    assert result.parse_error is not None
    assert result.findings == ()
    assert fix_source(text, unsafe=True).text == text


@pytest.mark.parametrize(
    "snippet",
    [
        "x = " + "(" * 150 + "1" + ")" * 150,
        "f = " + "lambda: " * 500 + "x",
        "".join(" " * i + f"if c{i}:\n" for i in range(90)) + " " * 90 + "pass",
        "y = " + " + ".join(["a"] * 300),
        "y = x" + ".detach()" * 300,
        "if a:\n    pass\n" + "".join(f"elif b{i}:\n    pass\n" for i in range(300)),
        # Parses, though Python refuses to compile more than 20 nested blocks: analysed in
        # linear work past a few levels (each probed level doubles it).
        "".join("    " * i + f"for i{i} in range(2):\n" for i in range(40)) + "    " * 40 + "pass",
    ],
    ids=["parens", "lambdas", "ifs", "sum", "method-chain", "elif-chain", "loops"],
)
def test_deep_but_ordinary_nesting_is_analysed(snippet: str) -> None:
    finding = _only(_check(HEADER + snippet + "\n" + NO_GRAD_BUG))
    assert finding.range.start.line == snippet.count("\n") + BUG_LINE + 1


@pytest.mark.parametrize("terms", [500, 2_000])
def test_a_long_sum_that_python_parses_is_analysed(terms: int) -> None:
    snippet = "y = " + " + ".join(["a"] * terms)
    compile(snippet, "<sum>", "exec")
    _only(_check(HEADER + snippet + "\n" + NO_GRAD_BUG))


# -- line endings, BOM, tabs, non-ASCII ---------------------------------------------------------


@pytest.mark.parametrize(
    "newlines",
    [["\n"], ["\r\n"], ["\r"], ["\n", "\r\n"], ["\r\n", "\r", "\n"], ["\r", "\n"]],
    ids=["lf", "crlf", "cr", "lf+crlf", "crlf+cr+lf", "cr+lf"],
)
def test_every_line_ending_gives_the_same_positions(newlines: list[str]) -> None:
    lines = BUGGY.splitlines()
    text = "".join(line + newlines[i % len(newlines)] for i, line in enumerate(lines))
    finding = _only(_check(text))
    assert finding.range.start.line == BUG_LINE
    assert SourceText(text).slice(finding.range) == "torch.no_grad()"
    assert BUG_LINE + 2 in [r.range.start.line for r in finding.related]  # the backward()
    check_everything(text)


@pytest.mark.parametrize("separator", ["\x0c", "\x0b", "\x1c", "\x85", "\u2028", "\u2029"])
def test_unicode_line_separators_are_not_line_breaks(separator: str) -> None:
    # str.splitlines() breaks on these; Python's tokenizer and LSP clients do not.
    text = HEADER + f"s = 'a{separator}b'  # c{separator}d\n" + NO_GRAD_BUG
    finding = _only(_check(text))
    assert finding.range.start.line == BUG_LINE + 1
    assert SourceText(text).slice(finding.range) == "torch.no_grad()"


def test_a_bom_shifts_first_line_columns_by_one_code_point() -> None:
    text = "\ufeffimport torch; x = float(torch.nn.Linear(3, 1)(torch.randn(4, 3)).mean())\n"
    text += "x.backward()\n"
    finding = _only(_check(text), "GG102")
    source = SourceText(text)
    assert source.slice(finding.range).startswith("float(")
    assert finding.range.start.character == text.index("float(")
    fixed = fix_source(text, unsafe=True)
    assert fixed.text.startswith("\ufeffimport torch;") and fixed.applied == 1
    check_everything(text)


def test_tabs_count_as_one_column() -> None:
    text = HEADER + "with\ttorch.no_grad():\n\tloss = model(torch.randn(2, 3)).sum()\n"
    text += "loss.backward()\t# tab\n"
    finding = _only(_check(text))
    assert finding.range.start.character == len("with\t")
    fixed = fix_source(text, unsafe=True).text
    assert "\tloss.backward()" not in fixed.replace("\t# tab", "")  # no tab-indent leaked
    check_everything(text)


def test_cjk_and_emoji_before_a_diagnostic_give_exact_utf16_and_utf8_columns() -> None:
    line = 's = "🔥😀"; 隐藏 = float(model(torch.randn(4, 3)).mean())  # 注释 🔥'
    text = HEADER + line + "\n隐藏.backward()\n"
    finding = _only(_check(text), "GG102")
    source = SourceText(text)
    start, end = finding.range.start, finding.range.end
    assert source.slice(finding.range) == "float(model(torch.randn(4, 3)).mean())"
    prefix = line[: line.index("float(")]
    assert start.character == len(prefix)  # code points
    assert source.to_units(start, "utf-16") == len(prefix) + 2  # two astral-plane emoji
    assert source.to_units(start, "utf-8") == len(prefix.encode("utf-8"))
    assert source.from_units(start.line, len(prefix) + 2, "utf-16") == start
    assert source.from_units(start.line, len(prefix.encode("utf-8")), "utf-8") == start
    assert source.to_units(end, "utf-16") - source.to_units(start, "utf-16") == len(
        "float(model(torch.randn(4, 3)).mean())"
    )
    related = {source.slice(r.range) for r in finding.related}
    assert "隐藏.backward()" in related
    check_everything(text)


def test_non_ascii_identifiers_in_a_fix_keep_their_columns() -> None:
    text = textwrap.dedent(
        """\
        import torch
        from torch import nn
        模型 = nn.Linear(3, 1)
        with torch.no_grad():
            损失 = 模型(torch.randn(2, 3)).sum()  # 🔥
        损失.backward()
        """
    )
    fixed = fix_source(text, unsafe=True)
    assert fixed.applied == 1 and fixed.remaining.findings == ()
    assert "损失 = 模型(torch.randn(2, 3)).sum()  # 🔥" in fixed.text
    check_everything(text)
