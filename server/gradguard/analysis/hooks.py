"""Whether module hooks may exist in a file: what makes a module call's side effects matter.

A forward hook observes a module's call: `self.blocks(x)` whose result is dropped still
feeds the features hooks collect (timm's feature extraction does exactly that), and
`model.forward(x)` skips them. Hooks are registered by `register_*_hook` calls
(`Module.register_forward_hook`, `register_full_backward_hook`, the global
`torch.nn.modules.module.register_module_forward_hook`...; not `Tensor.register_hook`, a
hook on one tensor's gradient), or by code the file cannot see that is handed the modules
themselves (`FeatureHooks(specs, self.named_modules())`; not a builtin that only collects
or counts them, `list(self.modules())`), or by a library that summarises a model by
hooking every layer (Lightning's `ModelSummary` and `summarize`, torchinfo's and
torchsummary's `summary`). A syntactic over-approximation: when any of these appears
anywhere in the file, any module may be hooked.

A summary's hooks last only while the summary runs the model once: they see what that
forward computes (a dropped result included), then they are removed. `may_keep_hooks`
leaves them out: it answers whether a hook may still be there when the file's own code
calls a module (what `model.forward(x)` would skip).
"""

from __future__ import annotations

import ast
import re

from gradguard.analysis.names import identifier_spelling, mentions

# `register_forward_hook`, `register_forward_pre_hook`, `register_full_backward_hook`,
# `register_backward_hook`, `register_module_forward_hook`, ... (`register_hook` is a
# tensor's: `out.register_hook(save_grad)`).
_REGISTERS_A_HOOK = re.compile(r"register_\w+_hook")
# Library calls that register forward hooks on every layer of the model they are given.
_HOOKING_CALLS = re.compile(r"\b(?:ModelSummary|summarize|summary)\s*\(")
# Builtins that only collect, count or print the modules they are given: no hook.
_COLLECTING_BUILTINS = frozenset(
    "list tuple set frozenset dict len enumerate sorted reversed zip iter next print "
    "any all sum isinstance id repr str".split()
)
# Accessors that hand out a module's submodules.
_SUBMODULE_ACCESSORS = frozenset({"modules", "named_modules", "children", "named_children"})


def may_have_hooks(tree: ast.Module, text: str) -> bool:
    """True when some module of the file may have a hook registered on it, for a while
    (a summary's) or for good."""
    spelled = identifier_spelling(text)
    # "ummar" first: a substring test is 40 times faster than the word-bounded pattern,
    # which the regex engine tries at every position of the text (2 ms on 2k lines).
    if "ummar" in spelled and _HOOKING_CALLS.search(spelled):
        return True
    return may_keep_hooks(tree, text)


def may_keep_hooks(tree: ast.Module, text: str) -> bool:
    """True when some module of the file may have a hook registered on it that stays after
    the call that registered it returns (a `register_*_hook`, or modules handed to other
    code); a summary's passing hooks do not count."""
    if mentions(_REGISTERS_A_HOOK, text):
        return True
    text = identifier_spelling(text)
    if not any(f".{name}(" in text for name in _SUBMODULE_ACCESSORS):
        return False
    return any(_hands_over_submodules(node) for node in ast.walk(tree))


def _hands_over_submodules(node: ast.AST) -> bool:
    """`helper(..., model.named_modules())`: a call given a module's submodules."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name) and node.func.id in _COLLECTING_BUILTINS:
        return False
    for arg in (*node.args, *(kw.value for kw in node.keywords)):
        inner = arg.value if isinstance(arg, ast.Starred) else arg
        if (
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Attribute)
            and inner.func.attr in _SUBMODULE_ACCESSORS
        ):
            return True
    return False
