"""Settings in a `types.SimpleNamespace` nothing may change (`gradguard.analysis.config_objects`):
an attribute read from `cfg = SimpleNamespace(steps=3)` is the literal keyword's value, only
where the call is the standard-library class and no code of the file may change the
instance."""

from __future__ import annotations

import pytest

from gradguard.analysis.values import Grad, Kind
from tests.analysis.test_value_facets import fact_at


def test_a_keyword_literal_is_the_attribute(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = (
        "from types import SimpleNamespace\n"
        "def main():\n    cfg = SimpleNamespace(hidden=32, beta=0.5)\n    h = cfg.hidden  # <- h\n"
    )
    value = fact_at(snippet, monkeypatch)
    assert value.kind is Kind.SCALAR and value.const == 32 and value.grad is Grad.UNTRACKED


def test_the_module_spelling(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = (
        "import types\n"
        "def main():\n    cfg = types.SimpleNamespace(steps=4)\n    n = cfg.steps  # <- n\n"
    )
    assert fact_at(snippet, monkeypatch).const == 4


@pytest.mark.parametrize(
    ("header", "build", "changes"),
    [
        ("from types import SimpleNamespace\n", "SimpleNamespace(steps=N)", ""),  # no literal
        ("from types import SimpleNamespace\n", "SimpleNamespace(**base)", ""),
        ("from types import SimpleNamespace\n", "SimpleNamespace(steps=3)", "    reset(cfg)\n"),
        ("from types import SimpleNamespace\n", "SimpleNamespace(steps=3)", "    tweak(cfg)\n"),
        ("from types import SimpleNamespace\n", "SimpleNamespace(steps=3)", "    keep = [cfg]\n"),
        ("from types import SimpleNamespace\n", "SimpleNamespace(steps=3)", "    vars(cfg)\n"),
        # a class of the file spelled the same: not the standard library's
        ("class SimpleNamespace:\n    steps = 1\n", "SimpleNamespace(steps=3)", ""),
        ("from helpers import SimpleNamespace\n", "SimpleNamespace(steps=3)", ""),
    ],
)
def test_uncertain_settings_stay_unknown(
    header: str, build: str, changes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = (
        header + "N = 3\nbase = {}\ndef reset(c):\n    c.steps = 1\n"
        f"def main():\n    cfg = {build}\n" + changes + "    n = cfg.steps  # <- n\n"
    )
    assert fact_at(snippet, monkeypatch).const is None


# --- each spelling, followed into a function, and more ways to change it ------------------

NAMESPACES = (
    "import types\nfrom types import SimpleNamespace\nfrom types import SimpleNamespace as NS\n"
)


@pytest.mark.parametrize("build", ["SimpleNamespace", "types.SimpleNamespace", "NS"])
def test_a_namespace_attribute_is_the_keyword_it_was_given(
    build: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = NAMESPACES + f"cfg = {build}(steps=3, lr=0.5, name=str(1))\n"
    steps = fact_at(snippet + "s = cfg.steps  # <- s\n", monkeypatch)
    assert steps.kind is Kind.SCALAR and steps.const == 3
    assert fact_at(snippet + "r = cfg.lr  # <- r\n", monkeypatch).const == 0.5
    assert fact_at(snippet + "n = cfg.name  # <- n\n", monkeypatch).const is None


def test_a_namespace_followed_into_a_function_of_the_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = NAMESPACES + (
        "cfg = SimpleNamespace(steps=3)\n"
        "def train(settings):\n    h = torch.randn(settings.steps, 2)  # <- h\n"
        "train(cfg)\n"
    )
    value = fact_at(snippet, monkeypatch)
    assert value.shape.dims == (3, 2) and value.shape.exact


@pytest.mark.parametrize(
    "change",
    [
        "def reset():\n    cfg.steps = 4",  # stored again, by a function
        "setattr(cfg, 'lr', 1.0)",  # any attribute may be set
        "print(vars(cfg))",  # vars() hands out its __dict__
        "import json\njson.dumps(cfg)",  # handed to code outside the file
        "keep = [cfg]",  # put in a container
    ],
)
def test_a_namespace_that_may_change_is_unknown(
    change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = NAMESPACES + f"cfg = SimpleNamespace(steps=3)\n{change}\ns = cfg.steps  # <- s\n"
    assert fact_at(snippet, monkeypatch).const is None


def test_a_namespace_name_bound_again_is_not_the_builtin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = (
        "from types import SimpleNamespace\n"
        "def SimpleNamespace(**kw):\n    return kw\n"
        "cfg = SimpleNamespace(steps=3)\ns = cfg.steps  # <- s\n"
    )
    assert fact_at(snippet, monkeypatch).const is None


def test_a_dataclass_without_fields_is_not_a_namespace(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = (
        "from dataclasses import dataclass\n@dataclass\nclass Empty:\n    pass\n"
        "cfg = Empty(steps=3)\ns = cfg.steps  # <- s\n"
    )
    assert fact_at(snippet, monkeypatch).const is None
