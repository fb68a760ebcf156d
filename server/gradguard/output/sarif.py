"""`--output-format sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

A finding in a Jupyter notebook points at the notebook file; its region names the lines of
the file's JSON text that hold the cell's source (whole lines, no columns: a column of the
JSON text is not a column of the code), so code scanning shows the right place in the
file. Where the finding is in the cell is carried twice: in the location's `properties`
(`cell`, and `cellRegion` with 1-based lines and columns counted in the cell) and as a
logical location named `cell N` (kind `cell`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from gradguard import __version__
from gradguard.core.findings import Range, Severity
from gradguard.core.rule import all_rules
from gradguard.output import FileReport, Report

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/gradguard/gradguard"
_LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "note",
    Severity.HINT: "note",
}


def render(report: Report, *, color: bool = False) -> str:
    """One SARIF run: every rule in `tool.driver.rules`, every finding in `results`."""
    rules = all_rules()
    index = {rule.code: i for i, rule in enumerate(rules)}
    driver_rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.docs, "markdown": rule.docs},
            "help": {"text": rule.docs, "markdown": rule.docs},
            "helpUri": rule.url,
            "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        }
        for rule in rules
    ]
    results: list[dict[str, Any]] = []
    for file in report.files:
        uri = _uri(file.path)
        for f in file.findings:
            result: dict[str, Any] = {
                "ruleId": f.code,
                "level": _LEVEL[f.severity],
                "message": {"text": f.message},
                "locations": [_location(file, uri, f.range)],
                "relatedLocations": [
                    {"id": i, "message": {"text": r.message}, **_location(file, uri, r.range)}
                    for i, r in enumerate(f.related)
                ],
            }
            if f.code in index:
                result["ruleIndex"] = index[f.code]
            results.append(result)
    notifications = [
        {
            "level": "error",
            "message": {"text": failure.message},
            "locations": [{"physicalLocation": {"artifactLocation": _uri(failure.path)}}],
        }
        for failure in report.failures
    ]
    run = {
        "tool": {
            "driver": {
                "name": "gradguard",
                "version": __version__,
                "informationUri": INFORMATION_URI,
                "rules": driver_rules,
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [
            {
                "executionSuccessful": not report.failures,
                "toolExecutionNotifications": notifications,
            }
        ],
        "results": results,
    }
    document = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _uri(path: str) -> dict[str, str]:
    """Relative to the working directory (what code scanning expects), else absolute."""
    absolute = Path(path).absolute()
    try:
        relative = absolute.relative_to(Path.cwd())
    except ValueError:
        return {"uri": "file://" + _quote(absolute.as_posix())}
    return {"uri": _quote(relative.as_posix()), "uriBaseId": "%SRCROOT%"}


def _quote(path: str) -> str:
    """Percent-encode the file name's bytes (RFC 3986), also those that are not UTF-8."""
    return quote(path.encode("utf-8", "surrogateescape"))


def _location(file: FileReport, uri: dict[str, str], rng: Range) -> dict[str, Any]:
    """A SARIF location: physical, plus the cell for a notebook (see the module docstring)."""
    cell, shown = file.place_range(rng)
    if cell is None:
        return {"physicalLocation": _physical(uri, rng)}
    first, last = file.file_span(rng)
    region = {"startLine": first, "endLine": last}
    return {
        "physicalLocation": {"artifactLocation": uri, "region": region},
        "logicalLocations": [{"name": f"cell {cell}", "kind": "cell"}],
        "properties": {"cell": cell, "cellRegion": _region(shown)},
    }


def _region(rng: Range) -> dict[str, int]:
    # SARIF columns are 1-based and `endColumn` is one past the last character, which is
    # exactly our exclusive end plus one.
    return {
        "startLine": rng.start.line + 1,
        "startColumn": rng.start.character + 1,
        "endLine": rng.end.line + 1,
        "endColumn": rng.end.character + 1,
    }


def _physical(uri: dict[str, str], rng: Range) -> dict[str, Any]:
    return {"artifactLocation": uri, "region": _region(rng)}
