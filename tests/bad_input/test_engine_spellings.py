"""The same program spelled differently must get the same answer from the engine.

Old-Mac line breaks (a lone `\\r`), `# noqa` in such a file, identifiers in compatibility
characters that Python's parser normalises (NFKC), form feeds before an edit the language
server carries findings across, and settings files the TOML parser cannot take.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gradguard.core.edits import apply_edits
from gradguard.core.engine import check_source
from gradguard.core.findings import Finding, Position, Range, Severity
from gradguard.core.recovery import carry_findings
from gradguard.core.rule import all_rules
from gradguard.core.settings import SettingsError, load_pyproject, nearest_settings_file
from gradguard.core.suppression import noqa_edit
from gradguard.core.text import SourceText

LOOP_BUG = (
    "import torch\n"
    "\n"
    "def train(loader):\n"
    "    model = torch.nn.Linear(2, 2)\n"
    "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "    for x in loader:\n"
    "        loss = model(x).sum()\n"
    "        loss.backward()\n"
    "        opt.step()\n"
)


def _codes(findings: tuple[Finding, ...]) -> list[tuple[str, int]]:
    return [(f.code, f.range.start.line) for f in findings]


WRAPPED = [
    pytest.param("def main():\n" + textwrap.indent(ex.code, "    ") + "\n", id=f"{rule.code}-{i}")
    for rule in all_rules()
    for i, ex in enumerate(rule.invalid)
]


@pytest.mark.parametrize("text", WRAPPED)
def test_cr_only_line_breaks_find_what_lf_finds_inside_functions(text: str) -> None:
    lf = check_source(text)
    cr = check_source(text.replace("\n", "\r"))
    assert _codes(cr.findings) == _codes(lf.findings)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_noqa_silences_a_finding_whatever_the_line_breaks(newline: str) -> None:
    text = LOOP_BUG.replace("    for x in loader:\n", "    for x in loader:  # noqa: GG601\n")
    assert "GG601" in {f.code for f in check_source(LOOP_BUG.replace("\n", newline)).findings}
    assert "GG601" not in {f.code for f in check_source(text.replace("\n", newline)).findings}


def test_disabling_a_rule_for_a_line_in_a_cr_file_takes_effect_once() -> None:
    source = SourceText(LOOP_BUG.replace("\n", "\r"))
    (finding,) = [f for f in check_source(source.text).findings if f.code == "GG601"]
    line = finding.range.start.line
    once = apply_edits(source, [noqa_edit(source, line, "GG601")])
    assert "GG601" not in {f.code for f in check_source(once).findings}
    twice = apply_edits(SourceText(once), [noqa_edit(SourceText(once), line, "GG601")])
    assert twice == once  # the comment is recognised, not appended again
    assert once.count("noqa") == 1


def test_identifiers_in_compatibility_characters_are_read_as_python_reads_them() -> None:
    fullwidth = "".join(chr(0xFF41 + ord(c) - ord("a")) for c in "torch")  # U+FF54 U+FF4F...
    text = LOOP_BUG.replace("torch", fullwidth)
    assert "torch" not in text
    assert "GG601" in {f.code for f in check_source(text).findings}


def test_a_hook_registered_in_compatibility_characters_counts_as_a_hook() -> None:
    # GG602 stays silent on a discarded module call when forward hooks may collect its output;
    # `register_forward_hook` spelled in fullwidth letters registers one all the same.
    base = (
        "import torch\n"
        "from torch import nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.body = nn.Linear(2, 2)\n"
        "        self.head = nn.Linear(2, 1)\n"
        "    def forward(self, x):\n"
        "        self.body(x)\n"
        "        return self.head(x)\n"
        "net = Net()\n"
    )
    assert "GG602" in {f.code for f in check_source(base).findings}
    hook = "".join(chr(0xFF41 + ord(c) - ord("a")) if c.isalpha() else c for c in "register")
    hooked = base + f"net.body.{hook}_forward_hook(lambda m, i, o: None)\n"
    assert "GG602" not in {f.code for f in check_source(hooked).findings}


def test_findings_carried_across_an_edit_keep_their_line_after_a_form_feed() -> None:
    # str.splitlines also splits at a form feed: deleting one moved the finding a line up.
    old = "import torch\n\x0cx = 1\ny = 2\n"
    new = "import torch\nx = 1\ny = 2\n"
    at = Range(Position(2, 0), Position(2, 5))  # `y = 2`, unchanged by the edit
    finding = Finding("GG999", "demo", Severity.ERROR, "m", at)
    (moved,) = carry_findings(old, new, (finding,))
    assert moved.range == at


# -- settings files the TOML parser cannot take --------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('tool = "x"\n', "`tool` must be a table"),
        # Deeper than any recursion limit the engine sets (the CLI test uses 500, as found).
        ("a = " + "[" * 20_000 + "]" * 20_000 + "\n", "nested too deeply"),
        ("[tool.gradguard\n", "cannot read"),
        ('[tool]\ngradguard = "all"\n', "[tool.gradguard] must be a table"),
    ],
    ids=["tool-not-a-table", "deep-array", "invalid-toml", "gradguard-not-a-table"],
)
def test_a_broken_nearest_pyproject_is_a_settings_error(
    tmp_path: Path, content: str, message: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(content)
    with pytest.raises(SettingsError, match=message.replace("[", r"\[").replace("]", r"\]")):
        path = nearest_settings_file(tmp_path)
        load_pyproject(path or tmp_path / "pyproject.toml")


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_the_indentation_step_is_read_whatever_the_line_breaks(newline: str) -> None:
    # Found by the long fix fuzz: with `\r` breaks the first block was not found, and the
    # GG204 fix indented a tab-indented file with four spaces.
    text = "import torch\nmodel.eval()\nfor _ in range(3):\n\tx = 1\n".replace("\n", newline)
    assert SourceText(text).indent_unit == "\t"


def test_wrapping_a_tab_indented_loop_of_a_cr_file_keeps_tabs() -> None:
    text = (
        "import torch\nfrom torch import nn\nmodel = nn.Linear(8, 2)\nmodel.eval()\n"
        "preds = []\nfor _ in range(3):\n\tout = model(torch.randn(4, 8))\n\tpreds.append(out)\n"
    ).replace("\n", "\r")
    (finding,) = [f for f in check_source(text).findings if f.code == "GG204"]
    assert finding.fixes, "GG204 offers its wrap fix"
    fixed = apply_edits(SourceText(text), list(finding.fixes[0].edits))
    assert (
        "\r\twith" not in fixed and "\rwith torch.no_grad():\r\tfor _ in range(3):\r\t\t" in fixed
    )
