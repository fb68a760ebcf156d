"""Which `self.<m>` an optimizer kept by `__init__` still names in other methods when
another method re-binds `self.<m>` (`interpreter/module._rebuilt_elsewhere`): only when
`__init__` stores it once and every other store is a new object built by a call."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.interpreter.module import _rebuilt_elsewhere

CASES = [
    ("rebuilt by a builder in a method", "self.model = build()", True),
    ("rebuilt by a class in a method", "self.model = Net(3)", True),
    ("re-bound to a name", "self.model = other", False),
    ("re-bound in a tuple with a call", "self.model, self.x = build(), 1", False),
    ("registered as a buffer", "self.register_buffer('model', None)", False),
    ("augmented", "self.model += 1", False),
]


@pytest.mark.parametrize(("body", "kept"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_model_rebuilt_in_another_method(body: str, kept: bool) -> None:
    source = textwrap.dedent(
        """
        class Trainer:
            def __init__(self):
                self.model = build()

            def restart(self, other=None):
        """
    )
    source += "        " + body + "\n"
    cls = ast.parse(source).body[0]
    assert isinstance(cls, ast.ClassDef)
    assert _rebuilt_elsewhere(cls, "model") is kept


def test_a_model_stored_twice_by_init_or_never_rebuilt() -> None:
    twice = (
        "class T:\n    def __init__(self):\n        self.model = a()\n        self.model = b()\n"
    )
    once = "class T:\n    def __init__(self):\n        self.model = a()\n"
    for source, kept in ((twice, False), (once, False)):
        cls = ast.parse(source).body[0]
        assert isinstance(cls, ast.ClassDef)
        assert _rebuilt_elsewhere(cls, "model") is kept
