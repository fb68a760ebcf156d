"""Limits that keep one hostile or generated input from taking the machine down.

Memory goes to Python's syntax tree: about 160 bytes of tree per byte of dense code, so a
500,000-line file needs gigabytes before any rule runs. Files above `MAX_SOURCE_LINES` lines
or `MAX_SOURCE_BYTES` bytes are skipped with a message instead (a long string literal is one
tree node, hence the generous byte limit). Hand-written training code is far below both: the
largest module of PyTorch itself has about 12,000 lines.
"""

from __future__ import annotations

MAX_SOURCE_LINES = 120_000
MAX_SOURCE_BYTES = 32 * 1024 * 1024


def line_count(text: str) -> int:
    """Lines as Python counts them (`\\n`, `\\r\\n` and a lone `\\r` each end one)."""
    breaks = text.count("\n")
    if "\r" in text:  # rare: `\n` alone is one scan (checked on every keystroke)
        breaks += text.count("\r") - text.count("\r\n")
    return breaks + 1


def size_problem(text: str) -> str | None:
    """Why `text` is too large to analyse, or `None` when it is not."""
    if len(text) > MAX_SOURCE_BYTES:
        return too_large_message(len(text.encode("utf-8", "surrogatepass")))
    lines = line_count(text)
    if lines > MAX_SOURCE_LINES:
        return f"skipped: {lines:,} lines are more than the {MAX_SOURCE_LINES:,} GradGuard analyses"
    return None


def too_large_message(size: int) -> str:
    """The message for a file skipped because of its size in bytes."""
    return (
        f"skipped: {size / 1024 / 1024:.1f} MB is larger than the "
        f"{MAX_SOURCE_BYTES // 1024 // 1024} MB GradGuard analyses"
    )
