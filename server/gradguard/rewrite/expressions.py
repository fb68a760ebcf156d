"""Expression edits: replace an expression, append a method call to it."""

from __future__ import annotations

import ast

from gradguard.core.findings import Position, Range, TextEdit
from gradguard.core.text import SourceText

_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple)


def expr_range(source: SourceText, expr: ast.expr | ast.keyword) -> Range:
    """The exact range of an expression (or of a `name=value` keyword argument)."""
    start = source.from_ast(expr.lineno, expr.col_offset)
    end = source.from_ast(expr.end_lineno or expr.lineno, expr.end_col_offset or 0)
    return Range(start, end)


def expr_text(source: SourceText, expr: ast.expr | ast.keyword) -> str:
    """The source text of an expression, exactly as written."""
    return source.slice(expr_range(source, expr))


def replace_expr(source: SourceText, expr: ast.expr, text: str) -> TextEdit:
    """Replace an expression by `text`."""
    return TextEdit(expr_range(source, expr), text)


def needs_parentheses(expr: ast.expr) -> bool:
    """True when `expr.method()` would bind to only part of `expr`."""
    if isinstance(expr, ast.Tuple):
        return True
    return not isinstance(expr, _ATOMS)


def iterable_text(source: SourceText, expr: ast.expr) -> str:
    """Source text of `expr` usable after `for t in` (a walrus, lambda or conditional
    expression must be parenthesised there)."""
    text = expr_text(source, expr)
    if isinstance(expr, (ast.NamedExpr, ast.Lambda, ast.IfExp, ast.Yield, ast.YieldFrom)):
        return f"({text})"
    return text


def with_method(source: SourceText, expr: ast.expr, call: str) -> str:
    """Source text of `expr` followed by `.call`, parenthesised when needed."""
    text = expr_text(source, expr)
    if needs_parentheses(expr) or _is_parenthesised_elsewhere(text):
        text = f"({text})"
    return f"{text}.{call}"


def _is_parenthesised_elsewhere(text: str) -> bool:
    # A multi-line expression without brackets would break when a suffix is appended.
    return "\n" in text and not text.rstrip().endswith((")", "]", "}"))


def remove_argument(
    source: SourceText, call: ast.Call, argument: ast.expr | ast.keyword
) -> TextEdit:
    """Delete one argument of a call together with the comma that separates it."""
    items: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    items.sort(key=lambda n: (n.lineno, n.col_offset))
    index = next(i for i, item in enumerate(items) if item is argument)
    own = expr_range(source, argument)
    if index > 0:
        return TextEdit(Range(expr_range(source, items[index - 1]).end, own.end), "")
    if len(items) > 1:
        return TextEdit(Range(own.start, expr_range(source, items[1]).start), "")
    return TextEdit(own, "")


def add_keyword(source: SourceText, call: ast.Call, keyword: str) -> TextEdit:
    """Append a keyword argument (`retain_graph=True`) to a call: right after its last
    argument, so a trailing comma or a comment after that argument stays valid."""
    arguments: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    if arguments:
        last = max(arguments, key=lambda a: (a.end_lineno or 0, a.end_col_offset or 0))
        at = expr_range(source, last).end
        return TextEdit(Range(at, at), f", {keyword}")
    end = expr_range(source, call).end
    close = Position(end.line, end.character - 1)  # the `)`
    return TextEdit(Range(close, close), keyword)
