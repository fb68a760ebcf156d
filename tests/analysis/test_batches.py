"""Which loops draw batches, and which names hold them (`gradguard.analysis.batches`).

The interpreter adds the facts the syntax cannot give (the source's value is unknown, the
callee is not torch); these tests pin the syntactic part. The facts themselves are tested
at marked names in `test_value_facets.py` (batch data).
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis import batches


def _loop(source: str) -> ast.For:
    loops = [n for n in ast.walk(ast.parse(textwrap.dedent(source))) if isinstance(n, ast.For)]
    return loops[0]


@pytest.mark.parametrize(
    ("source", "drawn", "target"),
    [
        ("for x, y in loader:\n    pass", "loader", "(x, y)"),
        ("for i, (x, y) in enumerate(loader):\n    pass", "loader", "(x, y)"),
        ("for batch in tqdm(self.train_loader):\n    pass", "self.train_loader", "batch"),
        ("for i, batch in enumerate(tqdm(iter(loader))):\n    pass", "loader", "batch"),
    ],
)
def test_the_source_and_the_target_of_a_loop_drawing_batches(
    source: str, drawn: str, target: str
) -> None:
    found = batches.drawn_from(_loop(source))
    assert found is not None
    assert (ast.unparse(found[0]), ast.unparse(found[1])) == (drawn, target)


@pytest.mark.parametrize(
    "source",
    [
        "for a, b in zip(outputs, targets):\n    pass",
        "for name, p in model.named_parameters():\n    pass",
        "for i in enumerate(loader):\n    pass",  # enumerate's pair is not unpacked
        "for x in loaders[0]:\n    pass",
    ],
)
def test_loops_over_anything_else_draw_nothing(source: str) -> None:
    assert batches.drawn_from(_loop(source)) is None


def test_bound_names_of_nested_targets() -> None:
    """Plain names at any depth; a starred name binds a list of parts, which is left out."""
    target = ast.parse("(x, (y, z)), *rest = v").body[0].targets[0]  # type: ignore[attr-defined]
    assert batches.bound_names(target) == {"x", "y", "z"}


@pytest.mark.parametrize(
    ("body", "feeds"),
    [
        ("out = model(x)", True),
        ("out = model(x.to(device))", True),
        ("out = model(**batch)", True),
        ("images = batch[0].cuda()\nout = net(images)", True),  # a name derived in the body
        ("if flag:\n    images = batch[0]\n    feats = images.cuda()\nout = net(feats)", True),
        ("out = F.relu(x)", False),  # the consumer below accepts only `model` and `net`
        ("print(x)", False),
        ("out = model(other)", False),
    ],
)
def test_a_body_feeding_a_drawn_name_to_a_consumer(body: str, feeds: bool) -> None:
    loop = _loop("for x, batch in loader:\n" + textwrap.indent(body, "    "))
    names = frozenset({"x", "batch"})

    def consumer(func: ast.expr) -> bool:
        return ast.unparse(func) in ("model", "net")

    assert batches.feeds_a_call(loop, names, consumer) is feeds


def test_a_nested_function_of_the_body_is_not_the_loop_s() -> None:
    loop = _loop("for x, y in loader:\n    def later():\n        return model(x)\n")
    assert not batches.feeds_a_call(loop, frozenset({"x", "y"}), lambda f: True)
