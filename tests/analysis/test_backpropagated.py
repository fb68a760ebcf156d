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


def test_names_whose_requires_grad_is_forced_do_not_count() -> None:
    # The forced leaf lets backward run whether or not `loss` has history (GG109's pattern,
    # https://github.com/ronghuaiyang/arcface-pytorch/issues/56): GG401 must not be told
    # that `loss` certainly has a grad_fn.
    forced = "loss = criterion(model(batch), 1)\nloss.requires_grad = True\nloss.backward()\n"
    assert _names(forced) == frozenset()
    assert _names(
        "loss = criterion(model(batch), 1)\nloss.requires_grad_()\nloss.backward()\n"
    ) == (frozenset())
    body = "output = model(batch)\noutput.loss.requires_grad_(True)\noutput.loss.backward()\n"
    assert _names(body) == frozenset()
    # Reading the flag is no forcing.
    checked = "loss = criterion(model(batch), 1)\nif loss.requires_grad:\n    loss.backward()\n"
    assert _names(checked) == {"loss"}


def test_a_plain_name_of_an_unpacking_bound_once() -> None:
    assert _names("loss, parts = criterion(model(batch), 1)\nloss.backward()\n") == {"loss"}


def test_an_unpacking_in_a_loop_target_or_bound_twice_does_not_count() -> None:
    assert _names("for loss, parts in batch:\n    loss.backward()\n") == frozenset()
    body = "loss, parts = model(batch)\nloss, parts = model(batch)\nloss.backward()\n"
    assert _names(body) == frozenset()


def test_a_comprehension_variable_is_not_a_binding_of_the_function() -> None:
    body = "loss = model(batch)\nloss.backward()\nprint([loss.item() for loss in batch])\n"
    assert _names(body) == {"loss"}
    # A walrus inside a comprehension binds in the function: `loss` is bound twice then.
    walrus = "loss = model(batch)\nloss.backward()\nprint([(loss := x) for x in batch])\n"
    assert _names(walrus) == frozenset()
