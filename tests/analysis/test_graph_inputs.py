"""Facts of the saved-tensor graph that cross a helper call, a view, a dict read and an inner
loop: each snippet states the fact at its backward call (or accumulation), with look-alikes
where the fact must not hold."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import Accumulation
from gradguard.analysis.graph import SavedNode, Saves
from gradguard.analysis.graph_inputs import CallInputs, is_stand_in
from gradguard.analysis.model import BackwardCall, ModuleAnalysis, analyse_module
from gradguard.analysis.values import Grad, Kind

PRELUDE = "import torch\nfrom torch import nn\n"


def _analysis(body: str) -> ModuleAnalysis:
    source = PRELUDE + textwrap.dedent(body)
    return analyse_module(ast.parse(source), source)


def _backward(body: str, line_text: str) -> BackwardCall:
    """The backward call on the line containing `line_text`."""
    source = PRELUDE + textwrap.dedent(body)
    row = next(i for i, line in enumerate(source.splitlines(), 1) if line_text in line)
    calls = analyse_module(ast.parse(source), source).backward_calls
    return next(c for c in calls if c.call.lineno == row)


# A helper's result runs through the graph of the argument it was computed from: a
# backward through it after the argument's graph was freed goes through freed nodes.
@pytest.mark.parametrize(
    ("helper", "freed"),
    [
        ("def helper(f):\n    return (f - f.mean(0)).abs().mean()\n", True),
        ("def helper(f):\n    c = f * 2\n    return (c @ c.t()).mean()\n", True),
        ("def helper(f):\n    return f.sum()\n", True),
        # Look-alikes: the result is cut from the argument, or not computed from it.
        ("def helper(f):\n    return f.detach().pow(2).mean()\n", False),
        ("def helper(f):\n    return torch.zeros(()).requires_grad_()\n", False),
        ("def helper(f):\n    return (f.sum() * 0).item()\n", False),
    ],
)
def test_helper_result_runs_through_its_argument(helper: str, freed: bool) -> None:
    body = helper + textwrap.dedent(
        """
        def step(x):
            enc = nn.Linear(4, 4)
            feats = torch.sigmoid(enc(x))
            feats.sum().backward()
            helper(feats).backward()  # second
        """
    )
    second = _backward(body, "# second")
    assert bool(second.through_freed) is freed


def test_stand_ins_are_never_recorded_as_graph_of_a_backward() -> None:
    """A backward inside the helper on a value computed from a parameter: the recorded
    value keeps only operations (a stand-in is no graph of its own)."""
    analysis = _analysis(
        """
        def fit(model, x):
            loss = model(x).sum() + x.sum()
            loss.backward()
        """
    )
    for call in analysis.backward_calls:
        assert not any(is_stand_in(n) for n in call.value.graph)


# An op on parameters saves when an argument requires grad: the in-place change inside the
# helper breaks a backward through the helper's result only then.
@pytest.mark.parametrize(
    ("arguments", "modified"),
    [
        ("q, q, v", True),  # the softmax input requires grad: its output was saved
        ("plain, plain, v", False),  # only `v` requires grad: softmax saved nothing
    ],
)
def test_in_place_change_in_a_helper_counts_when_its_input_requires_grad(
    arguments: str, modified: bool
) -> None:
    body = textwrap.dedent(
        f"""
        def attend(q, k, v, mask):
            weights = torch.softmax(q @ k.t(), dim=-1)
            weights.masked_fill_(mask, 0.0)
            return weights @ v

        def go(mask):
            q = torch.randn(3, 3, requires_grad=True)
            v = torch.randn(3, 3, requires_grad=True)
            plain = torch.randn(3, 3)
            attend({arguments}, mask).sum().backward()  # here
        """
    )
    call = _backward(body, "# here")
    assert call.value.grad is Grad.TRACKED
    assert bool(call.through_modified) is modified


def test_call_inputs_realise_conditional_nodes_only_for_tracked_arguments() -> None:
    arg = ast.arg("q")
    stand_in = SavedNode(arg, Saves.OTHER)
    conditional = SavedNode(ast.Constant(1), Saves.OUTPUT, frozenset({stand_in}))
    certain = SavedNode(ast.Constant(2), Saves.OUTPUT)
    assert CallInputs(tracked=frozenset({stand_in})).realised(conditional)
    assert not CallInputs().realised(conditional)
    assert CallInputs().realised(certain)


# A certain view shares its base's version counter: changing the view changes what the
# base's graph node saved. A copy or a possible copy does not count.
@pytest.mark.parametrize(
    ("change", "modified"),
    [
        ("y = y.view(-1)\n    y += 1", True),
        ("y = y.t()\n    y.mul_(2)", True),
        ("v = y.unsqueeze(0)\n    v.add_(1)", True),
        ("y = y.clone().view(-1)\n    y += 1", False),
        ("y = y.reshape(-1)\n    y += 1", False),  # a view or a copy: not known
        ("v = y.view(-1) + 0\n    v += 1", False),
    ],
)
def test_views_share_the_saved_tensor(change: str, modified: bool) -> None:
    body = (
        "def go(x):\n"
        "    w = nn.Linear(4, 4)\n"
        "    y = torch.sigmoid(w(x))\n"
        f"    {change}\n"
        "    y.sum().backward()  # here\n"
    )
    call = _backward(body, "# here")
    assert bool(call.through_modified) is modified


# `d[key]` with a key not known: one of the dict's values.
@pytest.mark.parametrize(
    ("read", "tracked"),
    [
        ("losses[key]", True),
        ("losses['ce']", True),
        ("counts[key]", False),
    ],
)
def test_dict_read_with_unknown_key_is_one_of_its_values(read: str, tracked: bool) -> None:
    body = textwrap.dedent(
        f"""
        def go(x, key):
            m = nn.Linear(2, 1)
            out = m(x)
            losses = {{"ce": out.mean(), "mse": out.pow(2).mean()}}
            counts = {{"ce": 0, "mse": 1}}
            total = 0.0
            for batch in x:
                total += {read}
            (losses["ce"] + losses["mse"]).backward()
        """
    )
    accumulations = _analysis(body).events.of(Accumulation)
    assert bool(accumulations) is tracked


def test_dict_changed_by_a_method_is_not_read_as_its_old_values() -> None:
    body = """
    def go(x, key, extra):
        m = nn.Linear(2, 1)
        losses = {"ce": m(x).mean()}
        losses.update(extra)
        total = 0.0
        for batch in x:
            total += losses[key]
    """
    assert not _analysis(body).events.of(Accumulation)


def test_statement_in_a_loop_over_a_known_dict_runs_every_outer_iteration() -> None:
    body = """
    def train(loader):
        m = nn.Linear(2, 1)
        totals = {"a": 0.0, "b": 0.0}
        for x in loader:
            losses = {"a": m(x).mean(), "b": m(x).sum()}
            (losses["a"] + losses["b"]).backward()
            for key in losses:
                totals[key] += losses[key]
            for key in extra_keys:
                totals[key] += losses[key]
    """
    uses = _analysis(body).events.of(Accumulation)
    outer = {len(u.every_iteration) for u in uses}
    by_line = {u.stmt.lineno: u.every_iteration for u in uses}
    assert outer
    known, unknown = sorted(by_line)
    assert len(by_line[known]) == 2  # the key loop and the batch loop
    assert len(by_line[unknown]) == 1  # `extra_keys` may be empty


# What a layer with weights keeps: its input (a tensor, whatever it was known as before),
# reached through certain views of a name; not a possible copy, not a frozen layer's input.
@pytest.mark.parametrize(
    ("body", "modified"),
    [
        ("h = fc(x)\n    x[:, 0] = 0", True),
        ("h = fc(x.t().t())\n    x.add_(1)", True),
        ("y = x * 2\n    h = fc(y)\n    y.add_(1)", True),
        ("x[:, 0] = 0\n    h = fc(x)", False),
        ("h = fc(x.reshape(3, 4))\n    x.add_(1)", False),  # a view or a copy: not known
        ("h = fc(x.clone())\n    x.add_(1)", False),
        ("fc.requires_grad_(False)\n    h = fc(x) * w\n    x.add_(1)", False),
    ],
)
def test_a_layer_keeps_its_input(body: str, modified: bool) -> None:
    source = textwrap.dedent(
        """
        from elsewhere import make
        fc = nn.Linear(4, 4)
        w = torch.randn(4, requires_grad=True)

        def go():
            x = make()
            {body}
            h.sum().backward()  # here
        """
    ).replace("{body}", body)
    call = _backward(source, "# here")
    assert bool(call.through_modified) is modified


# `chunk`/`split`/`unbind` return pieces with the receiver's history. Changing a piece in
# place raises at once in torch 2.13.0 ("Output 0 of Split is a view and is being modified
# inplace"), not in backward: it is not a change of what the receiver's node saved.
@pytest.mark.parametrize(
    ("body", "modified"),
    [
        ("a, b = y.chunk(2, dim=-1)\n    y.add_(1)", True),
        ("a, b = y.chunk(2, dim=-1)\n    a.add_(1)", False),
        ("a, b = y.split(2, dim=-1)\n    b.mul_(2)", False),
        ("a, b, c, d = y.unbind(-1)\n    a += 1", False),
        ("a, b = y.clone().chunk(2, dim=-1)\n    a.add_(1)", False),
    ],
)
def test_pieces_of_a_split_are_views(body: str, modified: bool) -> None:
    source = textwrap.dedent(
        """
        fc = nn.Linear(4, 4)

        def go(x):
            y = torch.sigmoid(fc(x))
            {body}
            y.sum().backward()  # here
        """
    ).replace("{body}", body)
    call = _backward(source, "# here")
    assert call.value.grad is Grad.TRACKED
    assert bool(call.through_modified) is modified


def test_pieces_of_a_split_require_grad_as_the_receiver() -> None:
    analysis = _analysis(
        """
        fc = nn.Linear(4, 4)
        x = torch.randn(2, 4)
        q, k = fc(x).chunk(2, dim=-1)
        (q * k).sum().backward()
        a, b = x.chunk(2, dim=-1)
        """
    )
    (call,) = analysis.backward_calls
    assert call.value.grad is Grad.TRACKED and call.value.kind is Kind.TENSOR


def test_an_expanded_view_is_not_a_change_of_the_saved_tensor() -> None:
    """Changing an expanded view in place raises at once (overlapping elements)."""
    call = _backward(
        """
        fc = nn.Linear(4, 4)

        def go(x):
            y = torch.sigmoid(fc(x))
            v = y.expand(3, 2, 4)
            v.add_(1)
            y.sum().backward()  # here
        """,
        "# here",
    )
    assert not call.through_modified


# A module's forward changing in place what an op on its input saved: a change only when
# the input requires grad at the call. The output requires grad when the input does.
@pytest.mark.parametrize(
    ("scores", "tracked", "modified"),
    [
        ("fc(x)", True, True),
        ("torch.randn(2, 3)", False, False),
    ],
)
def test_forward_change_on_its_input_counts_when_the_input_requires_grad(
    scores: str, tracked: bool, modified: bool
) -> None:
    body = textwrap.dedent(
        """
        class Crit(nn.Module):
            def forward(self, score, ignore):
                probs = torch.sigmoid(score)
                probs[ignore] = 0.5
                return probs.sum()

        def go(x, ignore):
            fc = nn.Linear(4, 3)
            w = torch.randn((), requires_grad=True)
            (Crit()({scores}, ignore) * w).backward()  # here
        """
    ).replace("{scores}", scores)
    call = _backward(body, "# here")
    assert bool(call.through_modified) is modified
    if tracked:
        assert call.value.grad is Grad.TRACKED


def test_a_tensor_written_into_keeps_its_history() -> None:
    call = _backward(
        """
        def go(x, ignore):
            fc = nn.Linear(4, 3)
            y = torch.sigmoid(fc(x))
            y.sum().backward()
            y[ignore] = 0.5
            y.sum().backward()  # here
        """,
        "# here",
    )
    assert call.through_freed
