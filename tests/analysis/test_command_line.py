"""What `parser.parse_args()` returns (`gradguard.analysis.command_line`): a namespace of
settings without history, attribute by attribute, only when every argument is certain."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.command_line import parsed_namespaces
from tests.analysis.test_value_facets import fact_at

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


def test_a_default_that_is_not_a_literal_leaves_its_attribute_unknown() -> None:
    """`default=os.path.join(...)` may be any object: that attribute is unknown, the
    parser's other arguments are not; text for the help message may be anything."""
    fields = _fields(
        'parser.add_argument("--root", default=os.path.join(HOME, "runs"))\n'
        'parser.add_argument("--w", type=float, default=DEFAULT, help=f"weight ({DEFAULT})")\n'
        'parser.add_argument("--lr", type=float, default=0.1, help="lr " + UNITS)\n'
        'parser.add_argument("--mode", action="store_const", const=make_mode())\n'
    )
    assert fields == {
        "root": ("UNKNOWN", "UNKNOWN"),
        "w": ("UNKNOWN", "UNKNOWN"),
        "lr": ("SCALAR", "UNTRACKED"),
        "mode": ("UNKNOWN", "UNKNOWN"),
    }


@pytest.mark.parametrize(
    ("body", "tail"),
    [
        ('parser.add_argument("--w", type=to_tensor)\n', ""),  # a converter of the file
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


def _namespaces(source: str) -> list[dict[str, object]]:
    """The consts of each parse call's namespace, in source order of the calls."""
    tree = ast.parse(textwrap.dedent(source))
    found = parsed_namespaces(tree, {})
    calls = sorted(
        (node for node in ast.walk(tree) if isinstance(node, ast.Call) and id(node) in found),
        key=lambda node: node.lineno,
    )
    result = []
    for call in calls:
        namespace = found[id(call)]
        if namespace.fields is None:  # `parse_known_args`: the namespace and the rest
            assert namespace.elements is not None
            namespace = namespace.elements[0]
        assert namespace.fields is not None and namespace.elements is not None
        result.append(
            {n: v.const for n, v in zip(namespace.fields, namespace.elements, strict=True)}
        )
    return result


def test_a_parser_is_known_whatever_other_scopes_bind_to_its_name() -> None:
    source = """
        import argparse
        def parse():
            p = argparse.ArgumentParser()
            p.add_argument("--lr", type=float)
            return p.parse_args()
        def freeze(model):
            for p in model.parameters():
                p.requires_grad = False
        def other():
            p = argparse.ArgumentParser()
            p.add_argument("--lr", type=float)
            configure(p)
            return p.parse_args()
        """
    assert len(_namespaces(source)) == 1  # `other`'s parser is handed to unknown code


def test_a_parser_rebound_in_its_own_scope_stays_unknown() -> None:
    source = """
        import argparse
        def parse():
            p = argparse.ArgumentParser()
            p.add_argument("--lr", type=float)
            args = p.parse_args()
            p = None
            return args
        """
    assert _namespaces(source) == []


EMPTY = """
    import argparse
    parser = argparse.ArgumentParser(description="d")
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--shift", type=int, default=-2)
    parser.add_argument("--name", default="run")
    parser.add_argument("--steps", type=int, default="3")
    parser.add_argument("--fast", action="store_true")
    parser.add_argument("--slow", action="store_false")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--gpus", type=int, nargs="+", default=[0])
    parser.add_argument("--data", type=str, required=True, default="x")
    parser.add_argument("--on", action="store_true", default=True)
    parser.add_argument("--off", action="store_false", default=False)
    parser.add_argument("--count", action="count", default=0)
    args = parser.parse_args([])
    known, rest = parser.parse_known_args(args=[])
    given = parser.parse_args()
    listed = parser.parse_args(["--batch-size", "8"])
    into = parser.parse_args([], namespace=existing)
    """


def test_an_empty_command_line_gives_the_defaults() -> None:
    empty, known, given, listed, into = _namespaces(EMPTY)
    expected = {
        "batch_size": 4,
        "shift": -2,
        "name": "run",
        "steps": None,  # a string default converted by `type`: not followed
        "fast": False,
        "slow": True,
        "seed": None,
        "gpus": None,  # a list
        "data": None,  # required: parse_args([]) exits
        "on": True,
        "off": False,
        "count": 0,
    }
    assert empty == expected and known == expected
    pinned_only = {name: None for name in expected} | {"on": True, "off": False}
    assert given == pinned_only and listed == pinned_only
    assert into == {name: None for name in expected}  # its own attributes win


@pytest.mark.parametrize(
    "setup",
    [
        "parser = argparse.ArgumentParser(argument_default=0)\n",
        "parser = argparse.ArgumentParser(parents=[base])\n",
        "parser = argparse.ArgumentParser()\n"
        'parser.add_argument("--no-on", dest="on", action="store_false")\n',  # a shared dest
    ],
)
def test_defaults_another_setting_may_replace_are_unknown(setup: str) -> None:
    source = (
        "import argparse\n"
        + setup
        + 'parser.add_argument("--on", action="store_true", default=True)\n'
        "args = parser.parse_args([])\n"
    )
    (namespace,) = _namespaces(source)
    assert namespace["on"] is None


def test_sizes_from_an_empty_command_line_give_a_known_shape(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = """
        import argparse
        def get_args():
            p = argparse.ArgumentParser()
            p.add_argument("--batch-size", type=int, default=4)
            p.add_argument("--samples", type=int, default=256)
            return p.parse_args([])
        def zero(model):
            for p in model.parameters():
                p.grad = None
        def main():
            args = get_args()
            signal = torch.randn(args.batch_size, 1, args.samples)  # <- signal
        """
    value = fact_at(snippet, monkeypatch)
    assert value.shape.dims == (4, 1, 256) and value.shape.exact


def test_a_method_storing_into_its_own_instance_changes_no_namespace() -> None:
    """`self.lr = args.lr` stores into the learner, not into the namespace."""
    body = 'parser.add_argument("--lr", type=float)\n'
    kept = "class Learner:\n    def __init__(self, args):\n        self.lr = args.lr\n"
    assert _fields(body, "args = parser.parse_args()\n" + kept) == {"lr": ("SCALAR", "UNTRACKED")}


@pytest.mark.parametrize(
    "tail",
    [
        # A parse given an object of the file as its namespace returns that very object.
        "class Opts:\n    def reset(self):\n        self.lr = torch.ones(1)\n"
        "args = parser.parse_args(namespace=Opts())\n",
        # `setattr` may set any attribute of any object.
        "class Learner:\n    def __init__(self, args):\n        self.lr = args.lr\n"
        "        setattr(args, 'lr', torch.ones(1))\nargs = parser.parse_args()\n",
        # Not a method: `self` is whatever the caller passes.
        "def reset(self):\n    self.lr = torch.ones(1)\nargs = parser.parse_args()\n",
        # `self` re-bound inside the method.
        "class Learner:\n    def __init__(self, args):\n        self = args\n"
        "        self.lr = torch.ones(1)\nargs = parser.parse_args()\n",
    ],
)
def test_stores_that_may_reach_the_namespace_leave_it_unknown(tail: str) -> None:
    fields = _fields('parser.add_argument("--lr", type=float)\n', tail)
    assert fields.get("lr", ("UNKNOWN", "UNKNOWN")) == ("UNKNOWN", "UNKNOWN")


def test_a_parameter_named_vars_is_not_the_builtin() -> None:
    """`def forward(self, x, vars=None)` reads its parameter: nothing rewrites a namespace;
    the builtin `vars(args)` still may."""
    body = 'parser.add_argument("--lr", type=float)\n'
    forward = "def forward(x, vars=None):\n    return x if vars is None else vars\n"
    assert _fields(body, "args = parser.parse_args()\n" + forward) == {
        "lr": ("SCALAR", "UNTRACKED")
    }
    builtin = "def dump(x, table=None):\n    return vars(args)\n"
    assert _fields(body, "args = parser.parse_args()\n" + builtin) == {}


def test_a_setting_kept_by_a_constructor_reaches_the_other_methods(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`Learner(get_args())` keeps `self.inner_lr = args.inner_lr` (a float whatever the
    command line holds): the learner's other methods read a number without history."""
    snippet = """
        import argparse
        def get_args():
            p = argparse.ArgumentParser()
            p.add_argument("--inner-lr", type=float, default=0.1)
            return p.parse_args()
        class Learner(nn.Module):
            def __init__(self, args):
                super().__init__()
                self.inner_lr = args.inner_lr
            def step(self, g):
                rate = self.inner_lr  # <- rate
                return rate * g
        def main():
            Learner(get_args()).step(torch.ones(2))
        """
    value = fact_at(snippet, monkeypatch)
    assert value.kind.name == "SCALAR" and value.grad.name == "UNTRACKED"


def test_a_constructor_given_unknown_options_keeps_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = """
        class Learner(nn.Module):
            def __init__(self, args):
                super().__init__()
                self.inner_lr = args.inner_lr
            def step(self, g):
                rate = self.inner_lr  # <- rate
                return rate * g
        def main(opts):
            Learner(opts).step(torch.ones(2))
        """
    value = fact_at(snippet, monkeypatch)
    assert value.grad.name == "UNKNOWN"
