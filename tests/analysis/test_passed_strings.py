"""Parameters every call fills with strings nothing can change while the function runs
(`gradguard.analysis.passed_strings`), and what they decide: a helper that freezes the model
it is given and thaws the layers whose names start with the prefixes its caller passes
thaws none when no name of the model starts with one."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.constant_dicts import literal_dicts, unchanged_dicts
from gradguard.analysis.passed_strings import strings_passed
from tests.analysis.test_parameter_names import _frozen_at_end

HELPER = """
def thaw(model, prefixes):
    for name, p in model.named_parameters():
        if any(name.startswith(prefix) for prefix in prefixes):
            p.requires_grad = True
"""


def _passed(code: str, function: str = "thaw", name: str = "prefixes") -> bool:
    tree = ast.parse(textwrap.dedent(code))
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    unchanged = unchanged_dicts(tree, literal_dicts(tree))
    return strings_passed(tree, node, name, unchanged)


@pytest.mark.parametrize(
    "calls",
    [
        'thaw(m, ["fc", "head"])',
        'thaw(m, ("fc", "head"))\nthaw(m, prefixes="fc")',
        'CFG = {"thaw": ["fc"]}\nthaw(m, CFG["thaw"])',
        'CFG = {"thaw": ["fc"]}\ndef main():\n    thaw(m, CFG["thaw"])',
    ],
)
def test_literal_strings_and_unchanged_settings_are_certain(calls: str) -> None:
    assert _passed(HELPER + calls)


def test_a_default_of_strings_counts_for_a_call_leaving_it_out() -> None:
    code = HELPER.replace("(model, prefixes):", '(model, prefixes=("fc",)):') + "thaw(m)\n"
    assert _passed(code)


@pytest.mark.parametrize(
    "calls",
    [
        # A list some other name may change.
        'names = ["fc"]\nthaw(m, names)',
        # A settings dict the file changes.
        'CFG = {"thaw": ["fc"]}\nCFG["thaw"].append("head")\nthaw(m, CFG["thaw"])',
        # A local dict shadowing the settings at the call.
        'CFG = {"thaw": ["fc"]}\ndef main():\n    CFG = {"thaw": []}\n    thaw(m, CFG["thaw"])',
        # Options that may fill the parameter.
        'opts = {"prefixes": ["fc"]}\nthaw(m, **opts)',
        # One call of two passes something else.
        'thaw(m, ["fc"])\nthaw(m, get_names())',
        # The function is not only called: the file does not show every call.
        'thaw(m, ["fc"])\nhooks = [thaw]',
        # A list display holding more than strings.
        'thaw(m, ["fc", make()])',
    ],
)
def test_strings_that_may_change_or_differ_are_not_certain(calls: str) -> None:
    assert not _passed(HELPER + calls)


@pytest.mark.parametrize(
    "helper",
    [
        # The helper changes the list it is given.
        HELPER.replace("    for name", '    prefixes.append("head")\n    for name'),
        # Or rebinds the parameter.
        HELPER.replace("    for name", "    prefixes = load()\n    for name"),
        # Or hands it on.
        HELPER.replace("    for name", "    log(prefixes)\n    for name"),
    ],
)
def test_a_function_that_may_change_its_parameter_is_not_certain(helper: str) -> None:
    assert not _passed(helper + 'thaw(m, ["fc"])\n')


def test_prefixes_the_caller_passes_decide_the_thaw(monkeypatch: pytest.MonkeyPatch) -> None:
    """No name of `net` (`block.proj.weight`, ..., `head.bias`, see `test_parameter_names`)
    starts with `classifier`:
    frozen whole; with `head` among the prefixes, the head is thawed."""
    frozen = 'SETTINGS = {"thaw": ["classifier"]}\nnet.requires_grad_(False)\n'
    assert _frozen_at_end(frozen + HELPER + 'thaw(net, SETTINGS["thaw"])\n', monkeypatch)
    assert _frozen_at_end(frozen + HELPER + 'thaw(net, ["classifier", "fc"])\n', monkeypatch)
    thawed = 'SETTINGS = {"thaw": ["classifier", "head"]}\nnet.requires_grad_(False)\n'
    assert not _frozen_at_end(thawed + HELPER + 'thaw(net, SETTINGS["thaw"])\n', monkeypatch)
    names = 'names = ["classifier"]\nnet.requires_grad_(False)\n'
    assert not _frozen_at_end(names + HELPER + "thaw(net, names)\n", monkeypatch)
