"""Whether a file may register module hooks (what makes discarded or direct calls matter)."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.hooks import may_have_hooks


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
