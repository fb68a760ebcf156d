"""Remove one context manager from a `with` statement, format-preserving, with libcst.

Only the `with` statement itself is parsed by libcst (never the whole module): its lines are
cut out, nested under `if 1:` when indented so they parse on their own, transformed, and
returned as one text edit for exactly those lines.
"""

from __future__ import annotations

import ast

from gradguard.core.findings import Position, Range, TextEdit
from gradguard.core.text import SourceText

_PREFIX = "if 1:"


def drop_with_item(
    source: SourceText, stmt: ast.With | ast.AsyncWith, index: int
) -> TextEdit | None:
    """Drop item `index` of a `with`; with a single item, unwrap the block (dedent its body,
    keep its comments). Returns None when the statement cannot be rewritten safely."""
    import libcst as cst

    first = stmt.lineno - 1
    last = (stmt.end_lineno or stmt.lineno) - 1
    region = Range(Position(first, 0), Position(last, len(source.line(last))))
    text = source.slice(region)
    indent = source.line(first)[: len(source.line(first)) - len(source.line(first).lstrip())]
    newline = source.newline
    wrapped = f"{_PREFIX}{newline}{text}{newline}" if indent else f"{text}{newline}"
    try:
        module = cst.parse_module(wrapped)
    except cst.ParserSyntaxError:
        return None
    container = module.body[0]
    if indent:
        if not isinstance(container, cst.If) or not isinstance(container.body, cst.IndentedBlock):
            return None
        siblings = list(container.body.body)
    else:
        siblings = list(module.body)
    if len(siblings) != 1 or not isinstance(siblings[0], cst.With):
        return None
    node = siblings[0]
    if not 0 <= index < len(node.items):
        return None
    replacement: list[cst.BaseStatement]
    if len(node.items) > 1:
        items = [item for i, item in enumerate(node.items) if i != index]
        items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        replacement = [node.with_changes(items=items)]
    else:
        body = node.body
        if not isinstance(body, cst.IndentedBlock):
            return None  # `with x: stmt` on one line
        replacement = list(body.body)
        comment = body.header.comment
        first_stmt = replacement[0] if replacement else None
        if comment is not None and isinstance(
            first_stmt, cst.SimpleStatementLine | cst.BaseCompoundStatement
        ):
            line = cst.EmptyLine(indent=True, comment=comment)
            replacement[0] = first_stmt.with_changes(
                leading_lines=[line, *first_stmt.leading_lines]
            )
    if indent:
        assert isinstance(container, cst.If) and isinstance(container.body, cst.IndentedBlock)
        new_module = module.with_changes(
            body=[container.with_changes(body=container.body.with_changes(body=replacement))]
        )
        code = new_module.code
        code = code[len(_PREFIX) + len(newline) :]
    else:
        code = module.with_changes(body=replacement).code
    if code.endswith(newline):
        code = code[: -len(newline)]
    return TextEdit(region, code)
