"""Remove one context manager from a `with` statement, format-preserving, with libcst.

Only the `with` statement itself is parsed by libcst (never the whole module): its lines are
cut out, nested under `if 1:` when indented so they parse on their own, transformed, and
returned as one text edit for exactly those lines.
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from typing import TYPE_CHECKING

from gradguard.core.findings import Position, Range, TextEdit
from gradguard.core.text import SourceText

if TYPE_CHECKING:
    import libcst

_PREFIX = "if 1:"

# libcst's parser takes time quadratic in the length of a trailer chain (`x.detach()`
# repeated as `x.detach().detach()...`): one 6 KB line took 10 s, one 36 KB line over
# 300 s. A `with` statement with a longer line, or larger as a whole, is not rewritten: the
# finding is still reported, without this fix. Real code stays far below both limits.
MAX_LINE_CHARS = 2_000
MAX_STATEMENT_CHARS = 20_000


def drop_with_item(
    source: SourceText, stmt: ast.With | ast.AsyncWith, index: int
) -> TextEdit | None:
    """Drop item `index` of a `with`; with a single item, unwrap the block (dedent its body,
    keep its comments). Returns None when the statement cannot be rewritten safely."""
    first = stmt.lineno - 1
    last = (stmt.end_lineno or stmt.lineno) - 1
    region = Range(Position(first, 0), Position(last, len(source.line(last))))
    text = source.slice(region)
    if len(text) > MAX_STATEMENT_CHARS or any(
        len(source.line(line)) > MAX_LINE_CHARS for line in range(first, last + 1)
    ):
        return None
    import libcst as cst  # only now: a statement too large to rewrite never pays for it

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
        changed = node.with_changes(items=items)
        # Comments of the dropped item (or of a comma it took away) go above the `with`.
        lost = _header_comments(node)
        lost.subtract(_header_comments(changed))
        lines = [cst.EmptyLine(indent=True, comment=cst.Comment(c)) for c in lost.elements()]
        replacement = [changed.with_changes(leading_lines=[*node.leading_lines, *lines])]
    else:
        body = node.body
        if not isinstance(body, cst.IndentedBlock):
            return None  # `with x: stmt` on one line
        replacement = list(body.body)
        # The header's comments (in a parenthesised `with (`, then after the colon) go above
        # the first statement of the unwrapped body, in their order.
        comments = [cst.Comment(c) for c in _header_comments(node).elements()]
        if body.header.comment is not None:
            comments.append(body.header.comment)
        first_stmt = replacement[0] if replacement else None
        if comments and isinstance(first_stmt, cst.SimpleStatementLine | cst.BaseCompoundStatement):
            lines = [cst.EmptyLine(indent=True, comment=c) for c in comments]
            replacement[0] = first_stmt.with_changes(
                leading_lines=[*lines, *first_stmt.leading_lines]
            )
        elif comments:
            return None
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


def _header_comments(node: libcst.With) -> Counter[str]:
    """The comments inside the header of `node` (between `with` and the colon), in order."""
    import libcst as cst

    found: Counter[str] = Counter()

    class _Collect(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            found[comment.value] += 1

    header = node.with_changes(body=cst.IndentedBlock(body=[]), leading_lines=[])
    header.visit(_Collect())
    return found


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
