"""Whether a file may register module hooks (what makes discarded or direct calls matter)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.hooks import may_have_hooks, may_keep_hooks
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
