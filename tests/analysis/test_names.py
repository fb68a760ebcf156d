"""`names.paired`: what each target of an assignment gets; `names.identifier_spelling`."""

from __future__ import annotations

import ast
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradguard.analysis.names import (
    first_parameter,
    identifier_spelling,
    is_access_path,
    is_own_attribute,
    may_read_builtin,
    paired,
)


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("self.a = a", [("self.a", "a")]),
        ("self.a, self.b = a, b.to(d)", [("self.a", "a"), ("self.b", "b.to(d)")]),
        ("a, (b, c) = x, [y, z]", [("a", "x"), ("b", "y"), ("c", "z")]),
        ("a, b = pair", []),  # not a literal: which element goes where is unknown
        ("a, b = x, y, z", []),
        ("a, *b = x, y", []),
    ],
)
def test_paired(statement: str, expected: list[tuple[str, str]]) -> None:
    assign = ast.parse(statement).body[0]
    assert isinstance(assign, ast.Assign)
    pairs = paired(assign.targets[0], assign.value)
    assert [(ast.unparse(t), ast.unparse(v)) for t, v in pairs] == expected


@pytest.mark.parametrize(
    "text",
    [
        "import torch\nx = 1\n",
        "\uff54\uff4f\uff52\uff43\uff48 = 1\nimport torch\n",  # fullwidth `torch`, one line of two
        "# café\nname = 'e\u0301'\n\u00e9t\u00e9 = 2\n",  # a combining accent after ASCII
        "a = '\ufb01'\n\nb = 2",  # a ligature, an empty line, no final newline
    ],
)
def test_identifier_spelling_normalises_as_the_whole_text_would(text: str) -> None:
    assert identifier_spelling(text) == unicodedata.normalize("NFKC", text)


@given(
    st.lists(
        st.sampled_from(["a", "\n", "\uff54", "e\u0301", "\r", "x" * 900, "\u2028", "\ufb01"]),
        max_size=60,
    )
)
def test_identifier_spelling_across_blocks_normalises_as_the_whole_text_would(
    parts: list[str],
) -> None:
    """Texts of several blocks (`_BLOCK` characters and up to the end of that line), with
    the characters that are not ASCII anywhere: at a block's edge, on its last line."""
    text = "".join(parts)
    assert identifier_spelling(text) == unicodedata.normalize("NFKC", text)


def test_mentions_reads_identifiers_as_the_parser_does() -> None:
    """`mentions` finds a pattern in the raw text, or spelt in fullwidth letters (NFKC makes
    them ASCII, as the parser does), and not where the text does not say it."""
    import re

    from gradguard.analysis.names import mentions

    pattern = re.compile(r"\.eval\(")
    assert mentions(pattern, "model.eval()\n# é")
    assert mentions(pattern, "model.\uff45val()\n")  # fullwidth `e`
    assert not mentions(pattern, "model.train()\n# é")
    assert not mentions(pattern, "model.train()\n")


@pytest.mark.parametrize(
    ("source", "builtin"),
    [
        ("def forward(x, vars=None):\n    return vars\n", False),  # the parameter
        ("def f():\n    vars = {}\n    return vars\n", False),  # a local
        ("def f():\n    g = lambda vars: vars\n", False),  # a lambda's parameter
        ("def f(vars):\n    def g():\n        return vars\n", False),  # an enclosing one
        ("def f(args):\n    return vars(args)\n", True),  # the builtin
        ("print(vars)\n", True),  # at module level
        ("def f(vars):\n    pass\ndef g(a):\n    return vars(a)\n", True),  # another scope
        ("vars = 1\ndef f():\n    global vars\n    vars = 2\n    return vars\n", True),
    ],
)
def test_a_read_of_a_builtin_name(source: str, builtin: bool) -> None:
    """Whether a read of `vars` may be the builtin: not where a function binds the name."""
    assert may_read_builtin(ast.parse(source), frozenset({"vars"})) is builtin


@pytest.mark.parametrize(
    ("source", "first"),
    [
        ("def f(self, x): pass", "self"),
        ("def f(me, /, x): pass", "me"),
        ("async def f(cls): pass", "cls"),
        ("def f(*args): pass", None),
        ("def f(*, key): pass", None),
    ],
)
def test_first_parameter(source: str, first: str | None) -> None:
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
    assert first_parameter(function) == first


@pytest.mark.parametrize(
    ("expr", "own"),
    [("me.history", True), ("self.history", False), ("me", False), ("me.a.b", False)],
)
def test_is_own_attribute(expr: str, own: bool) -> None:
    function = ast.parse("def step(me, /, x): pass").body[0]
    assert isinstance(function, ast.FunctionDef)
    assert is_own_attribute(function, ast.parse(expr, mode="eval").body) is own


@pytest.mark.parametrize(
    ("expr", "path"),
    [
        ("model.blocks[i].fc.weight", True),
        ("net[-1].bias[0, ::2]", True),
        ("rows[0][1]", True),
        ("grid[i, j:k]", True),
        ("model.blocks[pick(i)].weight", False),  # reading it calls a function
        ("model.get().weight", False),
        ("(a + b)[0]", False),
        ("x[y[0]]", False),
    ],
)
def test_is_access_path(expr: str, path: bool) -> None:
    assert is_access_path(ast.parse(expr, mode="eval").body) is path
