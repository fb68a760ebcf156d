"""Whole-statement edits: insert a line after a statement, delete a statement's lines."""

from __future__ import annotations

import ast

from gradguard.core.findings import Position, Range, TextEdit
from gradguard.core.text import SourceText


def indentation(source: SourceText, stmt: ast.stmt) -> str:
    """The indentation of the logical line where `stmt` starts: the spaces and tabs after any
    form feed (the tokenizer restarts the column there), on the first physical line of a
    backslash-continued line (`x = 1; \\` then `loss.backward()` is indented like `x`)."""
    return _indent_of(source.line(logical_line_start(source, stmt.lineno - 1)))


def _indent_of(line: str) -> str:
    whitespace = line[: len(line) - len(line.lstrip(" \t\f"))]
    return whitespace[whitespace.rfind("\f") + 1 :]


def logical_line_start(source: SourceText, line: int) -> int:
    """The first physical line of the logical line that 0-based `line` belongs to, following
    backslash continuations back (a line with a `#` is taken to end in a comment)."""
    while line > 0:
        previous = source.line(line - 1)
        if not previous.endswith("\\") or "#" in previous:
            break
        line -= 1
    return line


def stands_alone(source: SourceText, stmt: ast.stmt) -> bool:
    """True when `stmt` owns its lines: nothing else before it or after it on them (nor on
    a line continued into them with a backslash)."""
    if logical_line_start(source, stmt.lineno - 1) != stmt.lineno - 1:
        return False
    first = source.line(stmt.lineno - 1)
    start = source.from_ast(stmt.lineno, stmt.col_offset)
    if first[: start.character].strip():
        return False
    return ends_its_line(source, stmt)


def ends_its_line(source: SourceText, stmt: ast.stmt) -> bool:
    """True when nothing but a comment follows `stmt` on its last line (no `; other()`, no
    backslash continuing it): a line inserted after that line comes right after `stmt`."""
    end_line = (stmt.end_lineno or stmt.lineno) - 1
    end = source.from_ast(end_line + 1, stmt.end_col_offset or 0)
    rest = source.line(end_line)[end.character :].strip()
    return rest == "" or rest.startswith("#")


def trailing_comment(source: SourceText, stmt: ast.stmt) -> str:
    """The comment after `stmt` on its last line, with the spaces before it ("" if none):
    a statement a fix moves takes its comment along."""
    end = source.from_ast(stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
    rest = source.line(end.line)[end.character :]
    return rest.rstrip() if rest.strip().startswith("#") else ""


def insert_after(source: SourceText, stmt: ast.stmt, text: str) -> TextEdit:
    """Insert `text` as a new line after `stmt`, at the same indentation."""
    end_line = (stmt.end_lineno or stmt.lineno) - 1
    at = Position(end_line, len(source.line(end_line)))
    return TextEdit(Range(at, at), f"{source.newline}{indentation(source, stmt)}{text}")


def insert_before(source: SourceText, stmt: ast.stmt, text: str) -> TextEdit:
    """Insert `text` as a new line before `stmt`, at the same indentation."""
    indent = indentation(source, stmt)
    at = Position(stmt.lineno - 1, 0)
    return TextEdit(Range(at, at), f"{indent}{text}{source.newline}")


def delete_lines(source: SourceText, first: int, last: int) -> TextEdit:
    """Delete 0-based lines `first..last` with their line breaks."""
    start = Position(first, 0)
    end = Position(last + 1, 0) if last + 1 < source.line_count else source.end()
    if last + 1 >= source.line_count and first > 0:
        start = Position(first - 1, len(source.line(first - 1)))
    return TextEdit(Range(start, end), "")


def delete_statement(source: SourceText, stmt: ast.stmt) -> TextEdit:
    """Delete a statement that stands alone on its lines (see `stands_alone`)."""
    return delete_lines(source, stmt.lineno - 1, (stmt.end_lineno or stmt.lineno) - 1)


def indented_block(
    source: SourceText, statements: list[ast.stmt], indent: str, first: int | None = None
) -> str:
    """The lines of `statements` indented one level deeper, for nesting them under a new
    compound statement. Lines that begin inside a multi-line string are left as they are:
    indenting them would change the string. `first` (a 0-based line) starts the block
    earlier, to take in the comment and blank lines before the first statement."""
    inside_strings: set[int] = set()
    for stmt in statements:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Constant | ast.JoinedStr) and node.end_lineno:
                inside_strings.update(range(node.lineno, node.end_lineno))  # 0-based: next lines
    unit = "\t" if indent.startswith("\t") else source.indent_unit
    first = statements[0].lineno - 1 if first is None else first
    last = (statements[-1].end_lineno or statements[-1].lineno) - 1
    return source.newline.join(
        _indent_line(line, indent, unit) if line.strip() and number not in inside_strings else line
        for number, line in ((i, source.line(i)) for i in range(first, last + 1))
    )


def _indent_line(line: str, indent: str, unit: str) -> str:
    """`line` one level deeper: `unit` goes after the block's own indentation `indent` (so
    `  \t` becomes `  \t    `, not `      \t`, which the tokenizer reads as the same
    column), and after any form feed, which resets the column."""
    whitespace = line[: len(line) - len(line.lstrip(" \t\f"))]
    feeds = whitespace[: whitespace.rfind("\f") + 1]
    rest = line[len(feeds) :]
    if indent and rest.startswith(indent):
        return feeds + indent + unit + rest[len(indent) :]
    return feeds + unit + rest
