"""Source encodings as Python reads them: UTF-8, a UTF-8 BOM, or a PEP 263 coding cookie.

`gradguard check` (and the language server, through the same reader) decodes a file the way
the interpreter would; `--fix` writes it back in the encoding it was read in.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gradguard.files import NotEncodableError, NotUtf8Error, decode

Write = Callable[[Path, str | bytes], Path]
Runner = Callable[..., Any]

LOOP = """\
import torch
from torch import nn
rnn = nn.RNNCell(4, 8)
h = torch.zeros(1, 8)
for step in range(5):
    h_next = rnn(torch.randn(1, 4), h)
    h_next.sum().backward()
    h = h_next
"""
COOKIE = "# -*- coding: latin-1 -*-\n"
COMMENT = "# r\u00e9seau r\u00e9current\n"


def test_a_latin1_file_with_a_cookie_is_checked_and_fixed_in_latin1(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    path = write(tmp_path / "rnn.py", (COOKIE + COMMENT + LOOP).encode("latin-1"))
    checked = gradguard("check", "--no-cache", "rnn.py")
    assert checked.code == 1 and "rnn.py:10:5: GG201" in checked.stdout, checked.stdout
    assert checked.stderr == ""
    fixed = gradguard("check", "--fix", "rnn.py")
    assert fixed.code == 0, fixed.stdout + fixed.stderr
    data = path.read_bytes()
    assert data.startswith((COOKIE + COMMENT).encode("latin-1"))  # still latin-1: one byte é
    assert b".detach()" in data


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nx = '\x80'\n", "x = '\u20ac'"),
        (b"# coding=utf-8\nx = '\xc3\xa9'\n", "x = '\u00e9'"),
        (b"\n# coding: latin-1\nx = '\xe9'\n", "x = '\u00e9'"),  # below a blank line
    ],
    ids=["cp1252-below-shebang", "utf8-cookie", "below-blank-line"],
)
def test_cookies_python_honours(data: bytes, expected: str) -> None:
    decoded = decode(data)
    assert expected in decoded.text
    assert decoded.encode(decoded.text) == data


@pytest.mark.parametrize(
    ("data", "message", "line"),
    [
        (b"# coding: klingon\nx = 1\n", "unknown encoding 'klingon' in the coding cookie", 1),
        (b"# coding: hex\nx = 1\n", "unknown encoding 'hex' in the coding cookie", 1),
        (b"# coding: idna\nx = '\xff'\n", r"file is not valid idna \(byte 0xff", 2),
        (b"\xef\xbb\xbf# coding: latin-1\n", "starts with a UTF-8 BOM but declares 'latin-1'", 1),
        # A cookie below code is a comment like any other: the file is UTF-8, and is not.
        (b"x = 1\n# coding: latin-1\ny = '\xe9'\n", "file is not valid UTF-8", 3),
    ],
    ids=["unknown", "not-a-text-codec", "codec-error", "bom-contradicts", "too-late"],
)
def test_cookies_python_refuses(data: bytes, message: str, line: int) -> None:
    with pytest.raises(NotUtf8Error, match=message) as info:
        decode(data)
    assert info.value.line == line


def test_an_unknown_cookie_is_one_error_line(
    gradguard: Runner, tmp_path: Path, write: Write
) -> None:
    write(tmp_path / "a.py", b"# coding: klingon\nimport torch\n")
    result = gradguard("check", "--no-cache", "a.py")
    assert result.code == 2
    assert result.stderr == "a.py:1:1: error: unknown encoding 'klingon' in the coding cookie\n"


def test_text_the_declared_encoding_cannot_hold_is_never_written() -> None:
    decoded = decode((COOKIE + "x = 1\n").encode("latin-1"))
    with pytest.raises(NotEncodableError, match="latin-1"):
        decoded.encode("x = '\u2713'\n")
