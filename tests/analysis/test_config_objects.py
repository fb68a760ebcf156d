"""Dataclass settings nothing may change (`gradguard.analysis.config_objects`): a field read
from `cfg = Config(...)` is its literal default, or the literal keyword that overrides it,
only where no code of the file may change the instance."""

from __future__ import annotations

import pytest

from gradguard.analysis.values import Grad, Kind
from tests.analysis.test_value_facets import fact_at

CONFIG = """
from dataclasses import dataclass, field
@dataclass
class Config:
    hidden: int = 32
    beta: float = 1.0
    name: str = "run"
    rows: int = -3
"""


def test_a_field_read_in_the_building_function_is_its_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = CONFIG + "def main():\n    cfg = Config()\n    h = cfg.hidden  # <- h\n"
    value = fact_at(snippet, monkeypatch)
    assert value.kind is Kind.SCALAR and value.const == 32


def test_keywords_override_their_fields_only(monkeypatch: pytest.MonkeyPatch) -> None:
    body = "def main():\n    cfg = Config(hidden=64, name=str(1))\n"
    assert fact_at(CONFIG + body + "    h = cfg.hidden  # <- h\n", monkeypatch).const == 64
    assert fact_at(CONFIG + body + "    r = cfg.rows  # <- r\n", monkeypatch).const == -3
    name = fact_at(CONFIG + body + "    n = cfg.name  # <- n\n", monkeypatch)
    assert name.const is None  # a keyword that is not a literal


def test_a_float_field_is_a_number_without_history(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = CONFIG + "def main():\n    cfg = Config()\n    b = cfg.beta  # <- b\n"
    value = fact_at(snippet, monkeypatch)
    assert value.kind is Kind.SCALAR and value.grad is Grad.UNTRACKED


def test_the_instance_followed_into_a_function_of_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = CONFIG + (
        "def train(net, cfg):\n"
        "    h = torch.randn(cfg.hidden, 2)  # <- h\n"
        "    net(h).sum().backward()\n"
        "def main():\n"
        "    cfg = Config()\n"
        "    train(model, cfg)\n"
    )
    value = fact_at(snippet, monkeypatch)
    assert value.shape.dims == (32, 2) and value.shape.exact


@pytest.mark.parametrize(
    "changes",
    [
        "    reset(cfg)\n",  # stored into by a function of the file
        "    other.hidden = 8\n",  # any object's attribute of that name
        "    setattr(cfg, 'hidden', 8)\n",
        "    vars(cfg)['hidden'] = 8\n",
        "    tweak(cfg)\n",  # handed to code outside the file
        "    keep = [cfg]\n",  # put in a container
        "    other = cfg\n    other.hidden = 8\n",
    ],
)
def test_an_instance_that_may_change_is_unknown(
    changes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = CONFIG + "def reset(c):\n    c.hidden = 8\n"
    snippet += "def main(other):\n    cfg = Config()\n" + changes + "    h = cfg.hidden  # <- h\n"
    assert fact_at(snippet, monkeypatch).const is None


@pytest.mark.parametrize(
    ("config", "build"),
    [
        ("    hidden: int = field(default=32)\n", "Config()"),  # not a literal default
        ("    hidden: list = field(default_factory=lambda: 32)\n", "Config()"),
        ("    hidden: int = SIZE\n", "Config()"),
        ("    hidden: int = 32\n    def __post_init__(self):\n        self.size = 1\n", "Config()"),
        ("    hidden: int = 32\n", "Config(16)"),  # by position: not followed
        ("    hidden: int = 32\n", "Config(**overrides)"),
    ],
)
def test_uncertain_fields_stay_unknown(
    config: str, build: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = (
        "from dataclasses import dataclass, field\nSIZE = 32\noverrides = {}\n"
        "@dataclass\nclass Config:\n" + config + f"def main():\n    cfg = {build}\n"
        "    h = cfg.hidden  # <- h\n"
    )
    assert fact_at(snippet, monkeypatch).const is None


def test_a_plain_class_is_not_a_dataclass(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = (
        "class Config:\n    hidden: int = 32\n    def __init__(self, hidden=8):\n"
        "        self.hidden = hidden\n"
        "def main():\n    cfg = Config()\n    h = cfg.hidden  # <- h\n"
    )
    assert fact_at(snippet, monkeypatch).const != 32  # its `__init__` binds 8


def test_a_frozen_instance_may_reach_any_code(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = (
        "from dataclasses import dataclass\n@dataclass(frozen=True)\nclass Config:\n"
        "    hidden: int = 32\n"
        "def main():\n    cfg = Config()\n    tweak(cfg)\n    h = cfg.hidden  # <- h\n"
    )
    assert fact_at(snippet, monkeypatch).const == 32


def test_an_instance_built_as_an_argument_is_followed_into_the_parameter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`Trainer(Config())`: the instance is bound to the constructor's parameter alone,
    then kept on `self`; its fields read through `self.cfg` are the defaults."""
    trainer = (
        "class Trainer:\n"
        "    def __init__(self, cfg):\n        self.cfg = cfg\n"
        "    def step(self):\n        h = self.cfg.hidden  # <- h\n        return h\n"
    )
    built = CONFIG + trainer + "def main():\n    Trainer(Config(hidden=8)).step()\n"
    assert fact_at(built, monkeypatch).const == 8
    by_keyword = built.replace("Trainer(Config(hidden=8))", "Trainer(cfg=Config(hidden=8))")
    assert fact_at(by_keyword, monkeypatch).const == 8


@pytest.mark.parametrize(
    "change",
    [
        "    def tune(self):\n        self.cfg.hidden = 4\n",  # stored into through `self`
        "    def swap(self, cfg):\n        cfg = Config()\n",  # (another parameter: kept)
    ],
)
def test_an_instance_built_as_an_argument_that_may_change(
    change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    trainer = (
        "class Trainer:\n"
        "    def __init__(self, cfg):\n        self.cfg = cfg\n"
        + change
        + "    def step(self):\n        h = self.cfg.hidden  # <- h\n        return h\n"
    )
    snippet = CONFIG + trainer + "def main():\n    Trainer(Config(hidden=8)).step()\n"
    expected = None if "hidden = 4" in change else 8
    assert fact_at(snippet, monkeypatch).const == expected


def test_a_parameter_bound_again_holds_more_than_the_instance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = CONFIG + (
        "def train(cfg, other):\n"
        "    if other:\n        cfg = other\n"
        "    h = cfg.hidden  # <- h\n"
        "def main(other):\n    train(Config(hidden=8), other)\n"
    )
    assert fact_at(snippet, monkeypatch).const is None


def test_a_class_keeping_a_field_on_itself_changes_no_instance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`self.hidden = cfg.hidden` in another class's `__init__` stores into that class's
    instance: the settings keep their fields."""
    snippet = CONFIG + (
        "class Trainer:\n"
        "    def __init__(self, cfg):\n"
        "        self.hidden = cfg.hidden\n"
        "def main():\n"
        "    cfg = Config()\n"
        "    Trainer(cfg)\n"
        "    h = cfg.hidden  # <- h\n"
    )
    assert fact_at(snippet, monkeypatch).const == 32


def test_a_store_by_a_method_of_the_dataclass_itself_may_change_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    widen = "    rows: int = -3\n    def widen(self):\n        self.hidden = 64\n"
    snippet = CONFIG.replace("    rows: int = -3\n", widen)
    snippet += "def main():\n    cfg = Config()\n    cfg.widen()\n    h = cfg.hidden  # <- h\n"
    assert fact_at(snippet, monkeypatch).const is None
