"""What `parser.parse_args()` returns (`gradguard.analysis.command_line`): a namespace of
settings without history, attribute by attribute, only when every argument is certain."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.command_line import parsed_namespaces

HEAD = "import argparse\nparser = argparse.ArgumentParser()\n"


def _fields(body: str, tail: str = "args = parser.parse_args()\n") -> dict[str, tuple[str, str]]:
    source = HEAD + textwrap.dedent(body) + tail
    tree = ast.parse(source)
    stores: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            stores[node.attr] = stores.get(node.attr, 0) + 1
    found = list(parsed_namespaces(tree, stores).values())
    if not found:
        return {}
    namespace = found[0]
    assert namespace.fields is not None and namespace.elements is not None
    return {
        name: (value.kind.name, value.grad.name)
        for name, value in zip(namespace.fields, namespace.elements, strict=True)
    }


def test_builtin_types_flags_and_strings() -> None:
    fields = _fields(
        """
        parser.add_argument("--lr", type=float, default=0.1)
        parser.add_argument("--batch-size", type=int, default=8)
        parser.add_argument("--fast", action="store_true")
        parser.add_argument("--name", default="run")
        parser.add_argument("-v", "--verbose", action="count", default=0)
        parser.add_argument("data")
        parser.add_argument("--gpus", type=int, nargs="+", default=[0])
        parser.add_argument("--out", dest="output", help="where")
        """
    )
    assert fields == {
        "lr": ("SCALAR", "UNTRACKED"),
        "batch_size": ("SCALAR", "UNTRACKED"),
        "fast": ("SCALAR", "UNTRACKED"),
        "name": ("OTHER", "UNTRACKED"),
        "verbose": ("SCALAR", "UNTRACKED"),
        "data": ("OTHER", "UNTRACKED"),
        "gpus": ("OTHER", "UNTRACKED"),
        "output": ("OTHER", "UNTRACKED"),
    }


def test_an_attribute_stored_by_the_file_is_unknown() -> None:
    fields = _fields(
        'parser.add_argument("--lr", type=float)\n', "args = parser.parse_args()\nargs.lr = 1\n"
    )
    assert fields == {"lr": ("UNKNOWN", "UNKNOWN")}


@pytest.mark.parametrize(
    ("body", "tail"),
    [
        ('parser.add_argument("--w", type=to_tensor)\n', ""),  # a converter of the file
        ('parser.add_argument("--w", type=float, default=DEFAULT)\n', ""),  # not a literal
        ('parser.add_argument("--w", action=MyAction)\n', ""),  # a custom action
        ("parser.add_argument(*OPTIONS)\n", ""),
        ('parser.add_argument("--w", **extra)\n', ""),
        ('group = parser.add_argument_group("g")\n', ""),  # arguments added elsewhere
        ("parser.set_defaults(w=0)\n", ""),
        ("configure(parser)\n", ""),  # handed to code that may add anything
        ('parser.add_argument("--w", type=float)\n', "vars(args).update(w=1)\n"),
        ('parser.add_argument("--w", type=float)\nparser = make()\n', ""),  # bound twice
        ('float = str\nparser.add_argument("--w", type=float)\n', ""),  # a re-bound builtin
    ],
)
def test_anything_uncertain_leaves_the_namespace_unknown(body: str, tail: str) -> None:
    assert _fields(body, "args = parser.parse_args()\n" + tail) == {}


def test_parse_known_args_returns_the_namespace_and_the_rest() -> None:
    source = (
        HEAD + 'parser.add_argument("--lr", type=float)\nargs, rest = parser.parse_known_args()\n'
    )
    tree = ast.parse(source)
    (pair,) = parsed_namespaces(tree, {}).values()
    assert pair.kind.name == "SEQUENCE" and pair.elements is not None
    namespace, leftover = pair.elements
    assert namespace.fields == ("lr",) and leftover.grad.name == "UNTRACKED"
