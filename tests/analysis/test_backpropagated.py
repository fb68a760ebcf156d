"""Names (and attributes of names) a function backpropagates: `analysis/backpropagated.py`."""

from __future__ import annotations

import ast
import textwrap

from gradguard.analysis.backpropagated import backpropagated_names


def _names(body: str) -> frozenset[str]:
    tree = ast.parse(
        "def f(model, batch, criterion):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    )
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    return backpropagated_names(function)


def test_a_name_bound_once_and_backpropagated() -> None:
    assert _names("loss = criterion(model(batch), 1)\nloss.backward()\n") == {"loss"}


def test_an_attribute_of_a_name_bound_once() -> None:
    assert _names("output = model(batch)\noutput.loss.backward()\n") == {"output.loss"}


def test_rebound_names_and_stored_attributes_do_not_count() -> None:
    assert _names("loss = model(batch)\nloss = loss * 2\nloss.backward()\n") == frozenset()
    body = "output = model(batch)\noutput.loss = output.loss * 2\noutput.loss.backward()\n"
    assert _names(body) == frozenset()
    assert _names("model(batch).loss.backward()\n") == frozenset()
