"""Hover: a rule's documentation over its code in a `# noqa` comment."""

from __future__ import annotations

import re
from urllib.parse import unquote

from lsprotocol import types

from gradguard.core.rule import rule_by_code
from gradguard.core.suppression import comments
from gradguard.core.text import SourceText
from gradguard.lsp.documents import clean_text
from gradguard.lsp.rule_docs import hover_markdown
from gradguard.lsp.state import GradGuardServer

_CODE_IN_COMMENT = re.compile(r"\b[A-Z]{2,}[0-9]{3}\b")
_NOQA_WORD = re.compile(r"noqa", re.I)


def hover(ls: GradGuardServer, params: types.HoverParams) -> types.Hover | None:
    """`textDocument/hover`."""
    return rule_hover(ls, params.text_document.uri, params.position)


def rule_hover(ls: GradGuardServer, uri: str, position: types.Position) -> types.Hover | None:
    """The rule's documentation when hovering a code in a `# noqa` comment."""
    document = ls.workspace.text_documents.get(unquote(uri))
    if document is None:
        return None
    source = SourceText(clean_text(document.source))
    if position.line >= source.line_count:
        return None
    at = source.from_units(position.line, position.character, ls.encoding)
    line_comments = [c for c in comments(source) if c.line == at.line]
    for comment in line_comments:
        if not _NOQA_WORD.search(comment.text):
            continue
        for match in _CODE_IN_COMMENT.finditer(comment.text):
            start = comment.column + match.start()
            end = comment.column + match.end()
            if not start <= at.character <= end:
                continue
            rule = rule_by_code(match.group(0))
            if rule is None:
                return None
            text = hover_markdown(rule)
            start_pos = types.Position(
                line=at.line,
                character=source.to_units(type(at)(at.line, start), ls.encoding),
            )
            end_pos = types.Position(
                line=at.line, character=source.to_units(type(at)(at.line, end), ls.encoding)
            )
            return types.Hover(
                contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                range=types.Range(start=start_pos, end=end_pos),
            )
    return None
