"""Remove one context manager from a `with` statement, format-preserving, with libcst.

Only the `with` statement itself is parsed by libcst (never the whole module): its lines are
cut out, nested under `if 1:` when indented so they parse on their own, transformed, and
returned as one text edit for exactly those lines.
"""

from __future__ import annotations

import ast
import warnings

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


def drop_nested_with_items(
    source: SourceText, drops: list[tuple[ast.With | ast.AsyncWith, int]]
) -> TextEdit | None:
    """Drop several items of nested `with` statements, innermost first (each statement in
    `drops` lies within the next, or is the next with a lower item index), as one edit
    over the outermost statement. None when any step cannot be done safely."""
    outermost = drops[-1][0]
    first = outermost.lineno - 1
    last = (outermost.end_lineno or outermost.lineno) - 1
    region = Range(Position(first, 0), Position(last, len(source.line(last))))
    prefix = source.text[: source.offset(region.start)]
    suffix = source.text[source.offset(region.end) :]
    current = source
    for stmt, index in drops:
        # Earlier drops only changed lines inside the outermost statement, after `stmt`
        # starts: find it again by where it starts.
        found = _with_at(current, stmt.lineno, stmt.col_offset)
        if found is None:
            return None
        edit = drop_with_item(current, found, index)
        if edit is None:
            return None
        text = current.text
        start, end = current.offset(edit.range.start), current.offset(edit.range.end)
        current = SourceText(text[:start] + edit.new_text + text[end:])
    final = current.text
    if not (final.startswith(prefix) and final.endswith(suffix)):
        return None
    return TextEdit(region, final[len(prefix) : len(final) - len(suffix)])


def _with_at(source: SourceText, line: int, column: int) -> ast.With | ast.AsyncWith | None:
    """The `with` statement starting at (`line`, `column`) in `source`, re-parsed."""
    text = source.text[1:] if source.has_bom else source.text  # ast positions skip a BOM
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings are not this edit's business
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.With | ast.AsyncWith)
            and node.lineno == line
            and node.col_offset == column
        ):
            return node
    return None
