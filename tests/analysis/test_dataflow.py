"""Facts of the dataflow pass: autograd state of backpropagated values and loop carries."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import InferenceSaved
from gradguard.analysis.model import BackwardCall, analyse_module
from gradguard.analysis.values import Grad, Kind, LossKind

PRELUDE = "import torch\nfrom torch import nn\n"


def _calls(body: str) -> list[BackwardCall]:
    source = PRELUDE + textwrap.dedent(body)
    return analyse_module(ast.parse(source), source).backward_calls


def _only(body: str) -> BackwardCall:
    calls = _calls(body)
    assert len(calls) == 1, calls
    return calls[0]


def test_module_output_is_tracked() -> None:
    call = _only("m = nn.Linear(2, 1)\nloss = m(torch.randn(3, 2)).sum()\nloss.backward()\n")
    assert call.value.grad is Grad.TRACKED
    assert call.value.kind is Kind.TENSOR


def test_no_grad_region_records_where_grad_was_off() -> None:
    call = _only(
        """
        m = nn.Linear(2, 1)
        with torch.no_grad():
            loss = m(torch.randn(3, 2)).sum()
        loss.backward()
        """
    )
    assert call.value.grad is Grad.UNTRACKED
    assert call.value.loss is not None and call.value.loss.kind is LossKind.NO_GRAD
    assert call.value.loss.grad_off is not None
    assert isinstance(call.value.loss.grad_off.owner, ast.With)


def test_branches_that_disagree_are_unknown() -> None:
    call = _only(
        """
        import random
        m = nn.Linear(2, 1)
        if random.random() > 0.5:
            with torch.no_grad():
                loss = m(torch.randn(3, 2)).sum()
        else:
            loss = m(torch.randn(3, 2)).sum()
        loss.backward()
        """
    )
    assert call.value.grad is Grad.UNKNOWN


def test_unknown_callable_gives_unknown() -> None:
    call = _only("from somewhere import model\nmodel(torch.randn(2)).backward()\n")
    assert call.value.grad is Grad.UNKNOWN


def test_a_name_backpropagated_is_a_tensor_with_history() -> None:
    """`loss.backward()` proves `loss` (bound once) is tracked, whatever produced it."""
    call = _only("from somewhere import model\nloss = model(torch.randn(2))\nloss.backward()\n")
    assert call.value.grad is Grad.TRACKED and call.value.kind is Kind.TENSOR


def test_a_name_bound_twice_is_not_promoted() -> None:
    calls = _calls(
        """
        from somewhere import model, flag
        loss = model(torch.randn(2))
        if flag:
            loss = model(torch.randn(3))
        loss.backward()
        """
    )
    assert [c.value.grad for c in calls] == [Grad.UNKNOWN]


def test_item_on_tensor_is_a_conversion() -> None:
    call = _only("m = nn.Linear(2, 1)\nloss = m(torch.randn(3, 2)).sum().item()\nloss.backward()\n")
    assert call.value.kind is Kind.SCALAR
    assert call.value.loss is not None and call.value.loss.kind is LossKind.CONVERSION


def test_loop_carried_state_is_tagged_with_its_carry_statement() -> None:
    call = _only(
        """
        cell = nn.GRUCell(2, 4)
        h = torch.zeros(1, 4)
        for _ in range(3):
            h = cell(torch.randn(1, 2), h)
            h.sum().backward()
        """
    )
    carries = call.value.all_carries()
    assert [c.key for c in carries] == ["h"]
    (carry,) = carries
    assert carry.value.has_history
    assert carry.loop in call.every_iteration


def test_state_recreated_each_iteration_is_not_carried() -> None:
    call = _only(
        """
        cell = nn.GRUCell(2, 4)
        for _ in range(3):
            h = torch.zeros(1, 4)
            h = cell(torch.randn(1, 2), h)
            h.sum().backward()
        """
    )
    assert not call.value.all_carries()


def test_helper_call_forgets_the_carry() -> None:
    call = _only(
        """
        from helpers import repackage
        cell = nn.GRUCell(2, 4)
        h = torch.zeros(1, 4)
        for _ in range(3):
            h = repackage(h)
            h = cell(torch.randn(1, 2), h)
            h.sum().backward()
        """
    )
    assert not call.value.all_carries()


def test_conditional_backward_does_not_run_every_iteration() -> None:
    call = _only(
        """
        cell = nn.GRUCell(2, 4)
        h = torch.zeros(1, 4)
        for i in range(3):
            h = cell(torch.randn(1, 2), h)
            if i % 2:
                h.sum().backward()
        """
    )
    assert not call.every_iteration


def test_local_module_forward_is_summarised() -> None:
    call = _only(
        """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.LSTM(2, 4)
            def forward(self, x, state):
                out, state = self.rnn(x, state)
                return out, state
        net = Net()
        out, state = net(torch.randn(3, 1, 2), None)
        out.sum().backward()
        """
    )
    assert call.value.grad is Grad.TRACKED


def test_decorated_function_returns_untracked_value() -> None:
    call = _only(
        """
        m = nn.Linear(2, 1)
        @torch.inference_mode()
        def predict(x):
            return m(x)
        predict(torch.randn(1, 2)).sum().backward()
        """
    )
    assert call.value.grad is Grad.UNTRACKED
    assert call.value.loss is not None and call.value.loss.kind is LossKind.NO_GRAD


def test_deep_nesting_does_not_escape() -> None:
    source = PRELUDE + "x = " + "(" * 90 + "1" + ")" * 90 + "\n"
    analyse_module(ast.parse(source), source)


def test_state_kept_on_a_module_is_carried_across_calls() -> None:
    call = _only(
        """
        class Stateful(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.GRU(2, 4)
                self.hidden = None
            def forward(self, x):
                out, self.hidden = self.rnn(x, self.hidden)
                return out
        model = Stateful()
        for _ in range(3):
            model(torch.randn(5, 1, 2)).sum().backward()
        """
    )
    (carry,) = call.value.all_carries()
    assert carry.key == "model.hidden"
    assert isinstance(carry.stmt, ast.Assign)


def test_sequential_of_known_layers_is_a_module_with_history() -> None:
    call = _only(
        "m = nn.Sequential(nn.Linear(2, 3), nn.ReLU())\nloss = m(torch.randn(1, 2)).sum()\n"
        "loss.backward()\n"
    )
    assert call.value.grad is Grad.TRACKED


def test_module_level_boolean_flag_is_known_in_functions() -> None:
    call = _only(
        """
        ENABLED = False
        m = nn.Linear(2, 1)
        def step():
            with torch.set_grad_enabled(ENABLED):
                loss = m(torch.randn(1, 2)).sum()
            loss.backward()
        """
    )
    assert call.value.loss is not None and call.value.loss.kind is LossKind.NO_GRAD


def test_number_accumulated_from_item_keeps_the_conversion_reason() -> None:
    call = _only(
        """
        m = nn.Linear(2, 1)
        total = 0.0
        for _ in range(2):
            total += m(torch.randn(1, 2)).sum().item()
        total.backward()
        """
    )
    assert call.value.kind is Kind.SCALAR
    assert call.value.loss is not None and call.value.loss.kind is LossKind.CONVERSION


def _inference_saved(body: str) -> list[str]:
    source = PRELUDE + textwrap.dedent(body)
    saved = analyse_module(ast.parse(source), source).events.of(InferenceSaved)
    return [ast.unparse(u.target) for u in saved]


def test_tensors_allocated_in_inference_mode_are_inference_tensors() -> None:
    saved = _inference_saved(
        """
        enc = nn.Linear(4, 4)
        head = nn.Linear(4, 2)
        w = torch.randn(4, requires_grad=True)
        x = torch.randn(3, 4)
        with torch.inference_mode():
            feats = enc(x)
            zeros = torch.zeros(3, 4)
            doubled = x * 2
            view = x.view(3, 4)
            same = x.to("cpu")
        head(feats)
        head(zeros)
        head(doubled)
        head(view)
        head(same)
        head(x)
        feats + w
        feats * w
        """
    )
    # Views and the input itself stay normal tensors; `+` saves neither operand.
    assert saved == ["feats", "zeros", "doubled", "feats"]


def test_inference_tensors_are_not_saved_without_recording_or_after_a_clone() -> None:
    saved = _inference_saved(
        """
        enc = nn.Linear(4, 4)
        head = nn.Linear(4, 2)
        with torch.inference_mode():
            feats = enc(torch.randn(3, 4))
        with torch.no_grad():
            head(feats)
        head(feats.clone())
        with torch.inference_mode(False):
            normal = enc(torch.randn(3, 4))
        head(normal)
        """
    )
    assert saved == []


def test_a_none_guard_narrows_the_other_branch_to_none() -> None:
    """`if h is not None: h.detach_()`: no path carries the previous iteration's graph."""
    call = _only(
        """
        gru = nn.GRU(4, 8)
        h = None
        for x in torch.randn(3, 5, 2, 4):
            if h is not None:
                h.detach_()
            out, h = gru(x, h)
            out.sum().backward()
        """
    )
    assert not call.value.all_carries()


def test_without_the_guard_the_state_is_carried() -> None:
    call = _only(
        """
        gru = nn.GRU(4, 8)
        h = None
        for x in torch.randn(3, 5, 2, 4):
            out, h = gru(x, h)
            out.sum().backward()
        """
    )
    assert {carry.key for carry in call.value.all_carries()} == {"h"}


def test_index_half_of_a_reduction_never_requires_grad() -> None:
    calls = _calls(
        """
        net = nn.Linear(3, 4)
        values, indices = torch.max(net(torch.randn(2, 3)), 1)
        values.sum().backward()
        indices.float().sum().backward()
        top = net(torch.randn(2, 3)).topk(2)
        top.indices.float().sum().backward()
        top.values.sum().backward()
        """
    )
    grads = [call.value.grad for call in calls]
    assert grads == [Grad.TRACKED, Grad.UNTRACKED, Grad.UNTRACKED, Grad.TRACKED]


def test_elementwise_max_is_not_an_index_reduction() -> None:
    call = _only(
        """
        net = nn.Linear(3, 4)
        out = net(torch.randn(2, 3))
        torch.max(out, torch.zeros(2, 4)).sum().backward()
        """
    )
    assert call.value.grad is Grad.TRACKED and call.value.kind is Kind.TENSOR


def test_an_unknown_backward_keyword_does_not_free_the_graph() -> None:
    calls = _calls(
        """
        net = nn.Linear(3, 1)
        y = torch.sigmoid(net(torch.randn(2, 3))).sum()
        y.backward(retain_variables=True)
        z = torch.sigmoid(net(torch.randn(2, 3))).sum()
        z.backward()
        """
    )
    assert [call.frees_graph for call in calls] == [False, True]


def test_storing_a_value_with_history_into_a_buffer_gives_the_buffer_that_history() -> None:
    """`values[step] = out` (CopySlices): the buffer now requires grad and keeps the graph."""
    call = _only(
        """
        net = nn.Linear(3, 1)
        values = torch.zeros(4)
        values[0] = net(torch.randn(3)).squeeze()
        values.sum().backward()
        """
    )
    assert call.value.grad is Grad.TRACKED


def test_storing_plain_data_keeps_the_buffer_plain() -> None:
    call = _only(
        """
        values = torch.zeros(4)
        values[0] = torch.randn(())
        values.sum().backward()
        """
    )
    assert call.value.grad is not Grad.TRACKED


@pytest.mark.parametrize(
    ("layer", "grad"),
    [
        ("nn.LazyLinear(2)", Grad.TRACKED),
        ("nn.Conv3d(1, 1, 1)", Grad.TRACKED),
        ("nn.RMSNorm(3)", Grad.TRACKED),
        ("nn.BatchNorm1d(3, affine=False)", Grad.UNTRACKED),
        ("nn.LayerNorm(3, elementwise_affine=False)", Grad.UNTRACKED),
        ("nn.Hardswish()", Grad.UNTRACKED),
        ("nn.ZeroPad1d(1)", Grad.UNTRACKED),
    ],
)
def test_every_torch_nn_layer_is_known(layer: str, grad: Grad) -> None:
    """A layer's output on plain input is tracked exactly when the layer owns parameters."""
    call = _only(f"m = {layer}\nm(torch.randn(2, 3)).sum().backward()\n")
    assert call.value.grad is grad


def test_a_pool_returning_indices_is_not_a_tensor() -> None:
    call = _only(
        """
        pool = nn.MaxPool1d(2, return_indices=True)
        out, where = pool(torch.randn(1, 2, 4, requires_grad=True))
        where.float().sum().backward()
        """
    )
    assert call.value.grad is Grad.UNKNOWN


@pytest.mark.parametrize(
    "binding",
    [
        "for x in range(3):\n    out = m(torch.randn(3, 2))\n",
        "while flag:\n    out = m(torch.randn(3, 2))\n",
        "if flag:\n    out = m(torch.randn(3, 2))\n",
    ],
)
def test_a_name_bound_on_one_path_only_keeps_that_value(binding: str) -> None:
    """Where reading it does not raise NameError, it holds what that path bound."""
    call = _only(f"m = nn.Linear(2, 1)\nflag = input()\n{binding}out.sum().backward()\n")
    assert call.value.grad is Grad.TRACKED


@pytest.mark.parametrize(
    "before",
    [
        "out = 1.0\n",  # bound before: the join of both
        "from helpers import *\n",  # a star import may have bound it
    ],
)
def test_a_name_bound_before_the_path_is_joined(before: str) -> None:
    call = _only(
        f"m = nn.Linear(2, 1)\n{before}for x in input():\n    out = m(torch.randn(3, 2))\n"
        "out.sum().backward()\n"
    )
    assert call.value.grad is Grad.UNKNOWN


@pytest.mark.parametrize(
    ("iterable", "runs"),
    [
        ("range(3)", True),
        ("range(1, steps)", True),  # steps = 4 below
        ("range(0, 10, 5)", True),
        ("[1, 2]", True),
        ("range(0)", False),
        ("range(0, 10, 0)", False),  # raises ValueError when it runs
        ("range(-5, 10**30)", False),  # not literal bounds
        ("range(3, -1, -1)", True),
        ("range(10, 99999999999999999999999)", True),
        ("range(5, 1)", False),
        ("range(n)", False),  # not known
        ("[]", False),
        ("[*rest]", False),
    ],
)
def test_a_loop_over_a_non_empty_range_leaves_only_through_its_body(
    iterable: str, runs: bool
) -> None:
    """After a loop that certainly runs, `loss` is what the body made, not the tensor
    without history from before the loop or it. (A total seeded with a number literal is
    the body's tensor unless the loop is certainly empty: see test_seeded_totals.)"""
    call = _only(
        f"m = nn.Linear(2, 1)\nsteps = 4\nn = int(input())\nrest = []\nloss = torch.zeros(())\n"
        f"for x in {iterable}:\n    loss = loss + m(torch.randn(3, 2)).sum()\n"
        "loss.backward()\n"
    )
    assert (call.value.grad is Grad.TRACKED) is runs


def test_an_attribute_set_on_one_path_is_unknown_after_it() -> None:
    """`self.h` may hold what an earlier call left: absent is not unbound for attributes."""
    call = _only(
        """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 1)

            def step(self, flag):
                if flag:
                    self.out = self.fc(torch.randn(3, 2))
                self.out.sum().backward()
        """
    )
    assert call.value.grad is not Grad.TRACKED


@pytest.mark.parametrize(
    ("cast", "grad"),
    [
        # Casts take their history from the receiver only: a device, a dtype or a tensor
        # whose dtype is taken adds none.
        ("out.to(device)", Grad.TRACKED),
        ("out.type(torch.float64)", Grad.TRACKED),
        ("out.to(torch.float16)", Grad.TRACKED),
        ("out.type_as(other)", Grad.TRACKED),
        ("out.argmax(dim=1).to(device)", Grad.UNTRACKED),
        ("out.argmax(dim=1).type(torch.float32)", Grad.UNTRACKED),
        ("out.argmax(dim=1).type_as(other)", Grad.UNTRACKED),
        # An integer or bool dtype never requires grad, whatever was cast.
        ("out.to(torch.long)", Grad.UNTRACKED),
        ("out.type(torch.int64)", Grad.UNTRACKED),
        ("out.to(device, dtype=torch.bool)", Grad.UNTRACKED),
        ("out.to(device, torch.int32)", Grad.UNTRACKED),
        # A dtype the analysis cannot name says nothing.
        ("out.to(dtype)", Grad.TRACKED),
        ("out.argmax(dim=1).to(dtype)", Grad.UNTRACKED),
    ],
)
def test_a_cast_keeps_the_history_of_its_receiver(cast: str, grad: Grad) -> None:
    call = _only(
        f"""
        def step(device, dtype, other):
            net = nn.Linear(3, 4)
            out = net(torch.randn(2, 3))
            ({cast}).sum().backward()
        """
    )
    assert call.value.grad is grad


def test_type_without_arguments_is_the_type_name_not_a_tensor() -> None:
    source = (
        PRELUDE + "out = nn.Linear(3, 4)(torch.randn(2, 3))\nname = out.type()\nname.backward()\n"
    )
    [call] = analyse_module(ast.parse(source), source).backward_calls
    assert call.value.kind is not Kind.TENSOR


@pytest.mark.parametrize(
    "loop",
    [
        "for value in values:\n    value.backward()",
        "for count, value in zip(counts, values):\n    value.backward()",
        "for step, value in enumerate(values):\n    value.backward()",
        "for step, value in enumerate(values):\n    step.backward()",
        "[value.backward() for value in values]",
        "values[step].backward()",
    ],
)
def test_items_of_a_list_built_by_appends_flow_into_loops_and_indexing(loop: str) -> None:
    body = textwrap.dedent(
        """
        def run(step):
            net = nn.Linear(3, 1)
            counts, values = [], []
            for _ in range(2):
                counts.append(2)
                values.append(net(torch.randn(2, 3)).sum().item())
        """
    ) + textwrap.indent(loop, "    ")
    call = _only(body)
    assert call.value.kind is Kind.SCALAR and call.value.grad is Grad.UNTRACKED


def test_an_unknown_list_gives_unknown_items() -> None:
    call = _only(
        "def run(values, counts):\n    for c, v in zip(counts, values):\n        v.backward()\n"
    )
    assert call.value.kind is not Kind.SCALAR


_AGENT = """
class Agent:
    def __init__(self):
        self.cell = nn.LSTMCell(4, 8)
        self.state = None

    def step(self, obs):
        self.state = self.cell(obs, self.state)
        return self.state[0]

    def update(self, obs):
        {reset}
        self.step(obs).sum().backward()

agent = Agent()
for _ in range(3):
    agent.update(torch.randn(2, 4))
"""


@pytest.mark.parametrize(
    ("reset", "carried"),
    [
        # The helper reads and writes `self.state`: it is the caller's state across calls.
        ("pass", ["self.state"]),
        # Assigned before the helper runs: nothing is carried from the previous call.
        ("self.state = None", []),
    ],
)
def test_state_a_helper_method_reads_and_writes_is_the_callers_state(
    reset: str, carried: list[str]
) -> None:
    source = PRELUDE + _AGENT.format(reset=reset)
    analysis = analyse_module(ast.parse(source), source)
    keys = [c.key for e in analysis.backward_in_calls for c in e.value.all_carries()]
    assert keys == carried
