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

Which module a hook is on is known when every hook that may stay is registered by a
method call on an access path (`model.layer4.register_forward_hook(fn)`; see
`hook_receivers`). A module reached by a strictly longer or strictly shorter path
(`model.forward(x)` with the hook on `model.layer4`, `model.layer4.forward(x)` with the
hook on `model`) is another module: a module never holds itself. `model.forward(x)` then
skips no hook of its own, and its children's run when it calls them.
"""

from __future__ import annotations

import ast
import re

from gradguard.analysis.names import identifier_spelling, is_access_path, mentions

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


def hook_receivers(tree: ast.Module, text: str) -> tuple[ast.expr, ...] | None:
    """The modules the file's lasting hooks are registered on, as the access paths of
    their `register_*_hook` calls; None when some hook may be on a module not named so (a
    global registration, a registration method read without being called on an access
    path, modules handed to other code). Empty when no hook may stay."""
    if not may_keep_hooks(tree, text):
        return ()
    text = identifier_spelling(text)
    if any(f".{name}(" in text for name in _SUBMODULE_ACCESSORS) and any(
        _hands_over_submodules(node) for node in ast.walk(tree)
    ):
        return None
    called: set[int] = set()
    receivers: list[ast.expr] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and _REGISTERS_A_HOOK.fullmatch(node.func.attr)
        ):
            if not is_access_path(node.func.value):
                return None
            called.add(id(node.func))
            receivers.append(node.func.value)
    for node in ast.walk(tree):
        spelled = (
            node.attr
            if isinstance(node, ast.Attribute)
            else node.id
            if isinstance(node, ast.Name)
            else None
        )
        if spelled is not None and id(node) not in called and _REGISTERS_A_HOOK.search(spelled):
            return None  # `register_module_forward_hook(fn)`, `hook = m.register_forward_hook`
    if not receivers:
        return None  # mentioned where the syntax tree does not show it (a non-ASCII name)
    return tuple(receivers)


def may_be_hooked(module: ast.expr, receivers: tuple[ast.expr, ...] | None) -> bool:
    """Whether the module `module` names may hold a lasting hook, given `hook_receivers`:
    unless every receiver is known to be another module (its path strictly extends
    `module`'s, or `module`'s strictly extends it)."""
    if receivers is None:
        return True
    if not receivers:
        return False
    if not is_access_path(module):
        return True
    path = _steps(module)
    for receiver in receivers:
        other = _steps(receiver)
        shorter, longer = sorted((path, other), key=len)
        if len(shorter) == len(longer) or longer[: len(shorter)] != shorter:
            return True
    return False


def _steps(path: ast.expr) -> list[str]:
    """The steps of an access path from its root name: `["model", ".layer4", "[0]"]`."""
    steps: list[str] = []
    while not isinstance(path, ast.Name):
        assert isinstance(path, ast.Attribute | ast.Subscript)
        if isinstance(path, ast.Attribute):
            steps.append(f".{path.attr}")
        else:
            steps.append(f"[{ast.dump(path.slice)}]")
        path = path.value
    steps.append(path.id)
    return steps[::-1]
