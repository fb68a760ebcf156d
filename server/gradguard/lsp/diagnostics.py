"""Findings to LSP diagnostics: ranges in the negotiated encoding, fixes carried in `data`.

Every range leaves the engine in code points and is converted here, once, with
`SourceText.to_units`. A diagnostic's `data` carries its fixes as ready-made LSP edits
(plus the document version they apply to) so code actions never re-analyse.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from gradguard.core.findings import Finding, Range, Safety, Severity
from gradguard.core.text import SourceText

SOURCE = "gradguard"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}
_TAGS = {
    "unnecessary": types.DiagnosticTag.Unnecessary,
    "deprecated": types.DiagnosticTag.Deprecated,
}

# Rewrites a finding's messages for where they are shown (line numbers counted per cell).
Citer = Callable[[Finding], Finding]

# Maps a range of the analysed text to (document URI, range in that document), or None
# when it cannot be shown there (a notebook range crossing cells).
RangeMapper = Callable[[Range], "tuple[str, Range] | None"]


@dataclass(frozen=True)
class Encoder:
    """Converts engine ranges to LSP ranges for one analysed text."""

    source: SourceText
    encoding: str

    def range(self, rng: Range, line_offset: int = 0) -> types.Range:
        """An engine range as an LSP range; `line_offset` shifts back into a notebook cell."""
        start, end = rng.start, rng.end
        return types.Range(
            start=types.Position(
                line=start.line - line_offset,
                character=self.source.to_units(start, self.encoding),
            ),
            end=types.Position(
                line=end.line - line_offset, character=self.source.to_units(end, self.encoding)
            ),
        )


def _lsp_range(encoder: Encoder, analysed: Range, mapped: Range) -> types.Range:
    """Convert using the analysed text's lines (same content) but the mapped line numbers."""
    return encoder.range(analysed, analysed.start.line - mapped.start.line)


def _json_range(rng: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": rng.start.line, "character": rng.start.character},
        "end": {"line": rng.end.line, "character": rng.end.character},
    }


def fix_data(
    finding: Finding, encoder: Encoder, mapper: RangeMapper, uri: str
) -> list[dict[str, Any]]:
    """The finding's fixes as JSON: title, safety and LSP edits (all in document `uri`).

    A fix with an edit that lands in another document (a different notebook cell) or
    crosses cells is dropped: applying half of it would break the code.
    """
    fixes: list[dict[str, Any]] = []
    for fix in finding.fixes:
        if not fix.edits:
            continue  # a lazily built fix that could not be built here
        edits: list[dict[str, Any]] = []
        for edit in fix.edits:
            mapped = mapper(edit.range)
            if mapped is None or mapped[0] != uri:
                break
            edits.append(
                {
                    "range": _json_range(_lsp_range(encoder, edit.range, mapped[1])),
                    "newText": edit.new_text,
                }
            )
        else:
            fixes.append({"title": fix.title, "safety": fix.safety.value, "edits": edits})
    return fixes


def to_diagnostics(
    findings: Sequence[Finding],
    encoder: Encoder,
    mapper: RangeMapper,
    version: int | None,
    cite: Citer | None = None,
) -> dict[str, list[types.Diagnostic]]:
    """LSP diagnostics for `findings`, grouped by the document each one is shown in.

    `cite` rewrites the lines a message cites (a notebook's: see
    `gradguard.lsp.notebook.cell_citer`); each message is shown as written otherwise.
    """
    grouped: dict[str, list[types.Diagnostic]] = {}
    for finding in findings:
        if cite is not None:
            finding = cite(finding)
        mapped = mapper(finding.range)
        if mapped is None:
            continue
        uri, shown = mapped
        related: list[types.DiagnosticRelatedInformation] = []
        for item in finding.related:
            target = mapper(item.range)
            if target is None:
                continue
            related.append(
                types.DiagnosticRelatedInformation(
                    location=types.Location(
                        uri=target[0], range=_lsp_range(encoder, item.range, target[1])
                    ),
                    message=item.message,
                )
            )
        tags = [_TAGS[tag] for tag in finding.tags if tag in _TAGS]
        data = {
            "version": version,
            "name": finding.name,
            "fixes": fix_data(finding, encoder, mapper, uri),
        }
        grouped.setdefault(uri, []).append(
            types.Diagnostic(
                range=_lsp_range(encoder, finding.range, shown),
                message=finding.message,
                severity=_SEVERITY[finding.severity],
                code=finding.code,
                code_description=types.CodeDescription(href=finding.url) if finding.url else None,
                source=SOURCE,
                related_information=related or None,
                tags=tags or None,
                data=data,
            )
        )
    return grouped


def result_id(diagnostics: Sequence[types.Diagnostic], converter: Any) -> str:
    """A content hash of a document's diagnostics: equal hashes answer "unchanged"."""
    payload = json.dumps(converter.unstructure(list(diagnostics)), sort_keys=True)
    return hashlib.sha1(payload.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class CarriedFix:
    """A fix read back from a diagnostic's `data`."""

    title: str
    safe: bool
    edits: tuple[types.TextEdit, ...]


def carried_fixes(diagnostic: types.Diagnostic) -> tuple[int | None, list[CarriedFix]]:
    """The document version and fixes stored in a GradGuard diagnostic's `data`.

    `data` comes back from the client and may be mangled or forged: anything malformed
    counts as absent (no version, or no fix) rather than failing the request.
    """
    data = diagnostic.data
    if not isinstance(data, Mapping):
        return None, []
    raw_fixes = data.get("fixes")
    fixes: list[CarriedFix] = []
    for raw in raw_fixes if isinstance(raw_fixes, list) else []:
        try:
            edits = tuple(parse_edit(edit) for edit in raw["edits"])
            fixes.append(CarriedFix(str(raw["title"]), raw["safety"] == Safety.SAFE.value, edits))
        except (KeyError, TypeError, ValueError):
            continue  # a client that mangled `data`: offer no fix rather than a wrong one
    return carried_version(data.get("version")), fixes


def carried_version(value: object) -> int | None:
    """A document version read back from a client (`None` unless a plain integer)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_edit(raw: Any) -> types.TextEdit:
    """An LSP text edit from its JSON form; raises KeyError, TypeError or ValueError."""
    if not isinstance(raw, Mapping) or not isinstance(raw["newText"], str):
        raise TypeError(f"not a text edit: {raw!r:.100}")
    return types.TextEdit(range=_parse_range(raw["range"]), new_text=raw["newText"])


def _parse_range(raw: Any) -> types.Range:
    return types.Range(start=_parse_position(raw["start"]), end=_parse_position(raw["end"]))


def _parse_position(raw: Any) -> types.Position:
    line, character = raw["line"], raw["character"]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (line, character)):
        raise TypeError(f"not a position: {raw!r:.100}")
    return types.Position(line=line, character=character)
