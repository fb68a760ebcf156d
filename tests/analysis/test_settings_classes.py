"""Which classes hold only settings (`gradguard.analysis.settings_classes`)."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.settings_classes import settings_classes

HEAD = "class Opt:\n    lr = 0.1\n    betas = (0.5, 0.999)\n    name: str = 'g'\n"

CASES = [
    ("built, read and handed on", "opt = Opt()\ndef f(o):\n    return o.lr\nf(opt)\n", True),
    ("never built", "x = 1\n", False),
    ("an attribute stored", "opt = Opt()\nopt.backbone = object()\n", False),
    ("stored through a parameter", "opt = Opt()\ndef f(o):\n    o.lr += 1\nf(opt)\n", False),
    ("handed outside the file", "import pickle\nopt = Opt()\npickle.dumps(opt)\n", False),
    ("built with arguments", "opt = Opt(1)\n", False),
    ("built into a container", "opts = [Opt()]\n", False),
    ("the class stored on", "Opt.lr = 2\nopt = Opt()\n", False),
    ("the class handed on", "def f(c):\n    return c()\nf(Opt)\n", False),
    ("setattr in the file", "opt = Opt()\nsetattr(object(), 'a', 1)\n", False),
    ("returned", "def f():\n    opt = Opt()\n    return opt\n", False),
]


@pytest.mark.parametrize(("label", "tail", "expected"), CASES, ids=[c[0] for c in CASES])
def test_settings_class(label: str, tail: str, expected: bool) -> None:
    assert ("Opt" in settings_classes(ast.parse(HEAD + tail))) is expected, label


@pytest.mark.parametrize(
    "body",
    [
        "class Opt:\n    lr = 0.1\n    def f(self):\n        return 1\n",
        "class Opt(Base):\n    lr = 0.1\n",
        "class Opt:\n    lr = [0.1]\n",
        "class Opt:\n    lr = make()\n",
        "@dataclass\nclass Opt:\n    lr: float = 0.1\n",
    ],
)
def test_not_a_settings_body(body: str) -> None:
    assert settings_classes(ast.parse(body + "opt = Opt()\n")) == frozenset()
