"""`core.limits`: the line count that decides whether a text is too large counts lines as
Python does (`\\n`, `\\r\\n` and a lone `\\r` each end one), with its `\\n`-only fast path."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gradguard.core.limits import MAX_SOURCE_LINES, line_count, size_problem


@given(st.lists(st.sampled_from(["a", "\n", "\r", "\r\n", "\x0c", "é"]), max_size=40).map("".join))
def test_lines_are_counted_as_python_counts_them(text: str) -> None:
    breaks = text.replace("\r\n", "\n").replace("\r", "\n").count("\n")
    assert line_count(text) == breaks + 1


def test_a_text_of_too_many_lines_is_skipped() -> None:
    assert size_problem("x\n" * MAX_SOURCE_LINES) is not None
    assert size_problem("x\r" * MAX_SOURCE_LINES) is not None
    assert size_problem("x\r\n" * (MAX_SOURCE_LINES - 1)) is None
