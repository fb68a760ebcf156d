"""GG609 reads the body of an `if` whose test is a configuration flag: a clip there, first
thing and before any `unscale_`, still sees scaled gradients. Tests that may tell whether
the scaler is on (negated, reading the scaler or its `enabled=` expression) stay silent,
as does an `unscale_` earlier in the same body."""

from __future__ import annotations

import textwrap

import pytest

from gradguard.core.engine import check_source, fix_source
from gradguard.core.settings import Settings

SETTINGS = Settings(select=("GG609",))


def _program(test: str, body: str, enabled: str = "use_amp") -> str:
    head = textwrap.dedent(
        f"""
        import torch
        from torch import nn

        def train(model, optimizer, x, use_amp, max_norm):
            scaler = torch.amp.GradScaler("cpu", enabled={enabled})
            loss = model(x).sum()
            scaler.scale(loss).backward()
            if {test}:
        """
    )
    tail = "    scaler.step(optimizer)\n    scaler.update()\n"
    return head + textwrap.indent(body, " " * 8) + "\n" + tail


CLIP = "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)"


@pytest.mark.parametrize("test", ["max_norm > 0", "max_norm", "max_norm is not None"])
def test_clip_under_a_configuration_test_is_found(test: str) -> None:
    program = _program(test, f"n = {CLIP}\nprint(n)")
    found = check_source(program, settings=SETTINGS).findings
    assert [(f.code, f.range.start.line) for f in found] == [
        ("GG609", 9)
    ]  # 0-based: the clip in the if


def test_the_fix_unscales_inside_the_if() -> None:
    fixed = fix_source(_program("max_norm > 0", CLIP), settings=SETTINGS, unsafe=True)
    assert (
        f"    if max_norm > 0:\n        scaler.unscale_(optimizer)\n        {CLIP}\n" in fixed.text
    )
    assert fixed.remaining.findings == ()


@pytest.mark.parametrize(
    ("test", "body", "enabled"),
    [
        ("not use_amp", CLIP, "use_amp"),  # clips only when the scaler is off
        ("use_amp", CLIP, "use_amp"),  # the test is the scaler's switch
        ("scaler.is_enabled()", CLIP, "True"),  # the test asks the scaler
        ("max_norm > 0", f"scaler.unscale_(optimizer)\n{CLIP}", "use_amp"),
        ("max_norm > 0", f"model.weight.grad.mul_(2)\n{CLIP}", "use_amp"),
        ("max_norm == False", CLIP, "True"),
    ],
)
def test_tests_that_may_know_the_scaler_stay_silent(test: str, body: str, enabled: str) -> None:
    program = _program(test, body, enabled)
    assert check_source(program, settings=SETTINGS).findings == ()
