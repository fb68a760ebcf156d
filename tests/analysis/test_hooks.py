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
        ("n = len(list(model.modules()))", True),
        ("x = 'no hooks here'", False),
    ],
)
def test_hook_registration_is_seen(source: str, expected: bool) -> None:
    assert may_have_hooks(ast.parse(source), source) is expected
