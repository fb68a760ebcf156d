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
    """One `::error ...::message` line per finding (warning/notice by severity)."""
    lines: list[str] = []
    for file in report.files:
        for f in file.findings:
            start, end = f.range.start, f.range.end
            props = ",".join(
                [
                    f"title={_property(f'GradGuard ({f.code})')}",
                    f"file={_property(printable(file.path))}",
                    f"line={start.line + 1}",
                    f"col={start.character + 1}",
                    f"endLine={end.line + 1}",
                    f"endColumn={end.character + 1}",
                ]
            )
            lines.append(f"::{_LEVEL[f.severity]} {props}::{_data(f'{f.code} {f.message}')}")
    return "".join(line + "\n" for line in lines)


def _data(text: str) -> str:
    # The escapes GitHub's toolkit (`@actions/core` escapeData) applies to a message.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
