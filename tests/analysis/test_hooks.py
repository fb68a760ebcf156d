"""Whether a file may register module hooks (what makes discarded or direct calls matter)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.hooks import hook_receivers, may_be_hooked, may_have_hooks, may_keep_hooks
from gradguard.core.engine import check_source


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("model.register_forward_hook(save)", True),
        ("layer.register_full_backward_hook(fn)", True),
        ("torch.nn.modules.module.register_module_forward_pre_hook(fn)", True),
        ("self.hooks = FeatureHooks(specs, self.named_modules())", True),
        ("collect(*model.children())", True),
        ("for name, m in model.named_modules():\n    print(name)", False),
        ("out = model(x)", False),
        ("n = len(list(model.modules()))", False),
        ("for m in list(self.modules())[2:]:\n    init(m.weight)", False),
        ("handles = list(map(attach, model.modules()))", True),
        ("out.register_hook(save_grad)", False),
        ("h = model.layer[-1].register_backward_hook(save)", True),
        ("torch.autograd.graph.register_multi_grad_hook(ts, fn)", True),
        ("summary = summarize(model, max_depth=2)", True),
        ("ModelSummary(model)", True),
        ("torchinfo.summary(model, input_size=(1, 3))", True),
        ("writer.add_summary(s)\ntf.summary.scalar('x', 1)", False),
        ("x = 'no hooks here'", False),
    ],
)
def test_hook_registration_is_seen(source: str, expected: bool) -> None:
    assert may_have_hooks(ast.parse(source), source) is expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("model.register_forward_hook(save)", True),
        ("self.hooks = FeatureHooks(specs, self.named_modules())", True),
        # A summary hooks every layer for its own forward pass, then removes the hooks.
        ("summary = summarize(model, max_depth=2)", False),
        ("ModelSummary(model)", False),
        ("torchinfo.summary(model, input_size=(1, 3))", False),
        ("summary(net, input_data=x)\nh = net.register_forward_hook(save)", True),
        ("out = model(x)", False),
    ],
)
def test_hooks_that_stay_registered_are_told_from_a_summary_s(source: str, expected: bool) -> None:
    assert may_keep_hooks(ast.parse(source), source) is expected


def test_a_summary_s_hooks_do_not_make_a_later_forward_call_a_finding() -> None:
    """Course notebooks print `summary(net, ...)` (torchkeras, torchinfo) and later call
    `net.forward(x)`: the summary removed its hooks, nothing is skipped (GG603 silent);
    with a hook registered for good, the same call is reported."""
    summary_only = textwrap.dedent(
        """\
        import torch
        from torch import nn
        from torchinfo import summary
        net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        summary(net, input_size=(2, 4))
        out = net.forward(torch.randn(2, 4))
        """
    )
    hooked = summary_only.replace(
        "out = net", "net.register_forward_hook(lambda m, i, o: None)\nout = net"
    )
    assert [f.code for f in check_source(summary_only).findings] == []
    assert [f.code for f in check_source(hooked).findings] == ["GG603"]


@pytest.mark.parametrize(
    ("source", "called", "hooked"),
    [
        # Hooks on a child or on a parent of the module called: not its own.
        ("net[0].register_forward_hook(f)", "net", False),
        ("model.layer4.register_forward_hook(f)", "model", False),
        ("model.register_forward_pre_hook(f)", "model.encoder", False),
        ("model.layer4[1].register_full_backward_hook(f)", "model.layer4", False),
        # The module itself, a sibling (it may be the same module), another root.
        ("net[0].register_forward_hook(f)", "net[0]", True),
        ("model.a.register_forward_hook(f)", "model.b", True),
        ("self.fc.register_forward_hook(f)", "model", True),
        # A receiver that may be any module: a loop variable, a call's result.
        ("for m in net.modules():\n    m.register_forward_hook(f)", "net", True),
        ("pick(net).register_forward_hook(f)", "net", True),
        # Hooks not registered by a method call on a path: the global registration, a
        # registration method kept for later, modules handed to other code.
        ("register_module_forward_hook(f)", "net", True),
        ("add = net[0].register_forward_hook\nadd(f)", "net", True),
        ("net[0].register_forward_hook(f)\ncollect(net.named_modules())", "net", True),
        # No hook that stays.
        ("summary(net, (1, 4))", "net", False),
    ],
)
def test_which_modules_may_hold_a_lasting_hook(source: str, called: str, hooked: bool) -> None:
    tree = ast.parse(source)
    module = ast.parse(called, mode="eval").body
    assert may_be_hooked(module, hook_receivers(tree, source)) is hooked
