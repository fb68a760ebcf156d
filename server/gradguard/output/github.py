"""`--output-format github`: GitHub Actions workflow commands that annotate the diff."""

from __future__ import annotations

from gradguard.core.findings import Severity
from gradguard.output import Report, printable

_LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "notice",
    Severity.HINT: "notice",
}


def render(report: Report, *, color: bool = False) -> str:
    """One `::error ...::message` line per finding (warning/notice by severity).

    In a notebook, `line`/`endLine` are lines of the file's JSON text (where the cell's
    source is) without columns, and the message starts with `cell N:line:column`.
    """
    lines: list[str] = []
    for file in report.files:
        for f in file.findings:
            props = [f"title={_property(f'GradGuard ({f.code})')}"]
            props.append(f"file={_property(printable(file.path))}")
            cell, shown = file.place_range(f.range)
            if cell is None:
                start, end = f.range.start, f.range.end
                props += [
                    f"line={start.line + 1}",
                    f"col={start.character + 1}",
                    f"endLine={end.line + 1}",
                    f"endColumn={end.character + 1}",
                ]
                text = f"{f.code} {f.message}"
            else:
                first, last = file.file_span(f.range)
                props += [f"line={first}", f"endLine={last}"]
                at = shown.start
                text = f"{f.code} cell {cell}:{at.line + 1}:{at.character + 1}: {f.message}"
            lines.append(f"::{_LEVEL[f.severity]} {','.join(props)}::{_data(text)}")
    return "".join(line + "\n" for line in lines)


def _data(text: str) -> str:
    # The escapes GitHub's toolkit (`@actions/core` escapeData) applies to a message.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
