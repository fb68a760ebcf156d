"""Position conversions: ast UTF-8 columns, code points, LSP UTF-16 units."""

from __future__ import annotations

import ast

from gradguard.core.findings import Position
from gradguard.core.text import SourceText


def test_ast_columns_become_code_points_after_cjk_and_emoji() -> None:
    text = 'x = "中文🙂"; loss.backward()\n'
    tree = ast.parse(text)
    call = tree.body[1]
    source = SourceText(text)
    pos = source.from_ast(call.lineno, call.col_offset)
    assert text.splitlines()[0][pos.character :].startswith("loss.backward()")
    # 中 and 文 are one UTF-16 unit each, 🙂 is two.
    assert source.to_units(pos, "utf-16") == pos.character + 1
    assert source.to_units(pos, "utf-8") == call.col_offset
    assert source.from_units(0, source.to_units(pos, "utf-16"), "utf-16") == pos


def test_line_table_handles_crlf_and_missing_final_newline() -> None:
    source = SourceText("a\r\nbb\rccc")
    assert [source.line(i) for i in range(source.line_count)] == ["a", "bb", "ccc"]
    assert source.newline == "\r\n"
    assert source.offset(Position(2, 1)) == len("a\r\nbb\r") + 1
    assert source.position_at(source.offset(Position(1, 2))) == Position(1, 2)
