"""`--output-format concise`: one line per finding, then the summary (ruff's `concise`).

```
train.py:14:5: GG101 [*] `loss` was computed under torch.no_grad() (line 12), so ...
Found 1 error.
[*] 1 fixable with the --fix option.
```

`[*]` marks a finding `--fix` would fix (under the run's fix policy). A line is easy to
grep, to sort and to match with an editor's problem matcher; notes, help and the code frame
of `--output-format text` are left out. In a notebook the position reads
`path:cell N:line:column`.
"""

from __future__ import annotations

from gradguard.output import FileReport, Report, printable
from gradguard.output.text import COLOR, PLAIN, Palette, summary

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from gradguard.core.findings import Finding


def render(report: Report, *, color: bool = False) -> str:
    """Every finding on one line, then the summary."""
    p = COLOR if color else PLAIN
    lines = [render_finding(file, f, p) for file in report.files for f in file.findings]
    return "".join(line + "\n" for line in lines) + summary(report, p)


def render_finding(file: FileReport, finding: Finding, p: Palette = PLAIN) -> str:
    """`path:line:column: CODE [*] message` (1-based; `[*]` when `--fix` would fix it)."""
    cell, shown = file.place_range(finding.range)
    in_cell = f"cell {cell}:" if cell is not None else ""
    mark = f" {p.cyan}[*]{p.reset}" if file.applicable(finding.fix) else ""
    return (
        f"{p.bold}{printable(file.path)}{p.reset}:{in_cell}{shown.start.line + 1}:"
        f"{shown.start.character + 1}: {p.red}{finding.code}{p.reset}{mark} {finding.message}"
    )
