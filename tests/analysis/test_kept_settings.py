"""Settings dicts, functions and strings kept by an object, and the methods of strings.

A dict of literals stored once on `self` in `__init__` (a module-level constant dict, a
dict display, or a constructor parameter every construction binds to one of those) is
known in every method, when no code of the file may change it; a function of the file
stored once on `self` is that function; no `str` method gives a tensor.
"""

from __future__ import annotations

import pytest

from gradguard.analysis.values import Grad, Kind
from tests.analysis.test_value_facets import fact_at

_TRAINER = """
CFG = {{"w": 0.5, "name": "run"}}

class Trainer:
    def __init__(self, model, cfg):
        self.model, self.cfg = model, cfg

    def step(self, x):
        w = self.cfg["w"]  # <- w
        {extra}

t = Trainer(model, {argument})
{after}
"""


@pytest.mark.parametrize("argument", ["CFG", '{"w": 0.5}', "dict(w=0.5)"])
def test_a_settings_dict_given_to_the_constructor_is_known_in_methods(
    argument: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = _TRAINER.format(argument=argument, extra="", after="t.step(x)")
    w = fact_at(snippet, monkeypatch)
    assert (w.kind, w.const, w.grad) == (Kind.SCALAR, 0.5, Grad.UNTRACKED)


def test_a_dict_display_stored_in_init_is_known_in_methods(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    w = fact_at(
        """
        class Trainer:
            def __init__(self):
                self.hp = {"gamma": 0.9}

            def step(self):
                g = self.hp["gamma"]  # <- g
        """,
        monkeypatch,
    )
    assert (w.kind, w.const) == (Kind.SCALAR, 0.9)


@pytest.mark.parametrize(
    ("argument", "extra", "after"),
    [
        # changed by a method after `__init__`
        ("CFG", 'self.cfg["w"] = x', "t.step(x)"),
        # changed through a local alias of the attribute
        ('{"w": 0.5}', 'c = self.cfg\n        c["w"] = x', "t.step(x)"),
        # a local dict the caller changes after the construction
        ("local", "", 'local["w"] = x\nt.step(x)'),
        # changed by a mutating method from outside
        ('{"w": 0.5}', "", "t.cfg.update(w=x)\nt.step(x)"),
        # a module-level dict changed through the attribute of an instance
        ("CFG", "", 't.cfg["w"] = x\nt.step(x)'),
        # through a name holding the attribute of an instance
        ('{"w": 0.5}', "", 'c = t.cfg\nc["w"] = x\nt.step(x)'),
        # stored again elsewhere
        ('{"w": 0.5}', "", "t.cfg = {'w': x}\nt.step(x)"),
    ],
)
def test_a_settings_dict_that_may_change_stays_unknown(
    argument: str, extra: str, after: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = _TRAINER.format(argument=argument, extra=extra, after=after)
    snippet = 'local = {"w": 0.5}\n' + snippet
    w = fact_at(snippet, monkeypatch)
    assert w.const is None


def test_a_dict_with_a_value_not_literal_stays_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    w = fact_at(
        """
        class Trainer:
            def __init__(self):
                self.hp = {"gamma": x}

            def step(self):
                g = self.hp["gamma"]  # <- g
        """,
        monkeypatch,
    )
    assert w.kind is not Kind.SCALAR


def test_an_attribute_stored_twice_stays_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    w = fact_at(
        """
        class Trainer:
            def __init__(self):
                self.hp = {"gamma": 0.9}

            def reset(self):
                self.hp = {"gamma": x}

            def step(self):
                g = self.hp["gamma"]  # <- g
        """,
        monkeypatch,
    )
    assert w.const is None


_REWARD = """
def reward_of(seq):
    return float(len(seq))

class Agent:
    def __init__(self, get_reward):
        self.get_reward = get_reward

    def step(self, seq):
        r = self.get_reward(seq)  # <- r
        {extra}

a = Agent(reward_of)
a.step([1, 2])
"""


def test_a_function_of_the_file_kept_on_self_runs_when_called(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    r = fact_at(_REWARD.format(extra=""), monkeypatch)
    assert (r.kind, r.grad) == (Kind.SCALAR, Grad.UNTRACKED)


def test_a_function_attribute_stored_again_stays_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    r = fact_at(_REWARD.format(extra="self.get_reward = model"), monkeypatch)
    assert r.kind is not Kind.SCALAR


@pytest.mark.parametrize(
    ("expression", "kind"),
    [
        ('"".join(str(i) for i in range(3))', Kind.OTHER),
        ('"-".join(["a", "b"]).count("a")', Kind.SCALAR),
        ('"abc".upper().find("B")', Kind.SCALAR),
        ('"a b".split()', Kind.OTHER),
    ],
)
def test_string_methods_never_give_a_tensor(
    expression: str, kind: Kind, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = fact_at(f"s = {expression}  # <- s\n", monkeypatch)
    assert (s.kind, s.grad) == (kind, Grad.UNTRACKED)


_NAMESPACE = """
import argparse

def settings():
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, default=12)
    return parser.parse_args({argv})

class Runner:
    def __init__(self, opts):
        self.opts = opts

    def step(self):
        width = self.opts.width  # <- width
    {extra}

def main():
    r = Runner(settings())
    r.step()
"""


def test_a_namespace_of_fixed_settings_kept_in_init_is_known_in_methods(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    width = fact_at(_NAMESPACE.format(argv="[]", extra=""), monkeypatch)
    assert (width.kind, width.const, width.grad) == (Kind.SCALAR, 12, Grad.UNTRACKED)


@pytest.mark.parametrize(
    ("argv", "extra"),
    [
        ("", ""),  # the command line may override the default
        ("[]", "def resize(self, opts):\n        self.opts = opts"),  # stored again
        ("[]", "def shrink(self):\n        self.opts.width = 1"),  # an attribute store
    ],
)
def test_a_namespace_that_may_differ_stays_unknown_in_methods(
    argv: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    width = fact_at(_NAMESPACE.format(argv=argv, extra=extra), monkeypatch)
    assert width.const is None


def test_a_namespace_stored_from_outside_the_class_stays_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = _NAMESPACE.format(argv="[]", extra="") + "    r.opts = object()\n"
    width = fact_at(snippet, monkeypatch)
    assert width.const is None
