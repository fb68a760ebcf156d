"""`--output-format json`: ruff's JSON shape, plus GradGuard's `name`, `severity`, `related`."""

from __future__ import annotations

import json
from typing import Any

from gradguard.core.findings import Finding, Fix
from gradguard.output import FileReport, Report, one_based, printable


def render(report: Report, *, color: bool = False) -> str:
    """A JSON list with one object per finding, in file order."""
    items = [finding_json(file, f) for file in report.files for f in file.findings]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


def finding_json(file: FileReport, finding: Finding) -> dict[str, Any]:
    """One finding as ruff's `--output-format json` writes a diagnostic."""
    return {
        "code": finding.code,
        "name": finding.name,
        "severity": finding.severity.value,
        "message": finding.message,
        "filename": printable(file.path),
        "location": one_based(finding.range.start),
        "end_location": one_based(finding.range.end),
        "fix": fix_json(finding.fix),
        "url": finding.url or None,
        "noqa_row": finding.range.start.line + 1,
        "related": [
            {
                "message": r.message,
                "location": one_based(r.range.start),
                "end_location": one_based(r.range.end),
            }
            for r in finding.related
        ],
    }


def fix_json(fix: Fix | None) -> dict[str, Any] | None:
    """A fix as ruff writes it: applicability, message, edits."""
    if fix is None:
        return None
    return {
        "applicability": fix.safety.value,
        "message": fix.title,
        "edits": [
            {
                "content": e.new_text,
                "location": one_based(e.range.start),
                "end_location": one_based(e.range.end),
            }
            for e in fix.edits
        ],
    }
