"""`--output-format json`: ruff's JSON shape (with its notebook `cell`), plus GradGuard's
`name`, `severity` and `related`."""

from __future__ import annotations

import json
from typing import Any

from gradguard.core.findings import Finding, Fix, Range
from gradguard.output import FileReport, Report, one_based, printable


def render(report: Report, *, color: bool = False) -> str:
    """A JSON list with one object per finding, in file order."""
    items = [finding_json(file, f) for file in report.files for f in file.findings]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


def finding_json(file: FileReport, finding: Finding) -> dict[str, Any]:
    """One finding as ruff's `--output-format json` writes a diagnostic.

    `cell` is the notebook cell (numbered from 1 among all cells) the finding is in, `null`
    in a Python file; in a notebook every row counts from the first line of its own cell,
    and each related location and fix edit carries its own `cell`.
    """
    cell, shown = file.place_range(finding.range)
    return {
        "code": finding.code,
        "name": finding.name,
        "severity": finding.severity.value,
        "message": finding.message,
        "filename": printable(file.path),
        "location": one_based(shown.start),
        "end_location": one_based(shown.end),
        "fix": fix_json(finding.fix, file),
        "url": finding.url or None,
        "noqa_row": shown.start.line + 1,
        "related": [_located(file, r.range, {"message": r.message}) for r in finding.related],
        "cell": cell,
    }


def fix_json(fix: Fix | None, file: FileReport | None = None) -> dict[str, Any] | None:
    """A fix as ruff writes it: applicability, message, edits."""
    if fix is None:
        return None
    return {
        "applicability": fix.safety.value,
        "message": fix.title,
        "edits": [_located(file, e.range, {"content": e.new_text}) for e in fix.edits],
    }


def _located(file: FileReport | None, rng: Range, fields: dict[str, Any]) -> dict[str, Any]:
    """`fields` with the range's `location`, `end_location` and `cell`."""
    cell, shown = file.place_range(rng) if file is not None else (None, rng)
    return {
        **fields,
        "location": one_based(shown.start),
        "end_location": one_based(shown.end),
        "cell": cell,
    }
