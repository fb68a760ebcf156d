"""Layers frozen parameter by parameter: `self.tok.weight.requires_grad = False`.

A torch.nn layer of `parameter_names.LEAF_PARAMETERS` holds at most the parameters that
table lists for it (`weight`; or `weight` and `bias`, of which a `bias=False` layer lacks
one). Setting `requires_grad = False` on each of them by attribute
(`layer.weight.requires_grad = False`, `layer.bias.requires_grad_(False)`) therefore freezes
every parameter the layer has, as `layer.requires_grad_(False)` would: an embedding's
`weight` is all it has, so freezing it freezes the embedding.

The freeze of one parameter counts at the statement doing it; the freezes of the others
count when they are statements earlier in the same block (they certainly ran before), on
the same layer written the same way (`self.tok`), with no statement between them binding
anything at or under that layer's name (`self.tok = ...`, `self.tok.bias = nn.Parameter(...)`,
which would make a new, trainable parameter) and no statement between them setting a
parameter of it to require grad again. Anything else (a freeze inside an `if`, a loop over
names): not this fact.

Whether the layer is one of the table, and whether its freeze may be undone elsewhere in the
file, is for the interpreter to establish (`TrainingEffects._freeze` and the file's frozen
facts, `parameters.may_unfreeze`).
"""

from __future__ import annotations

import ast

from gradguard.analysis.names import dotted
from gradguard.analysis.parameter_names import LEAF_PARAMETERS
from gradguard.analysis.parameters import freezes_argument, is_false, is_true
from gradguard.analysis.walk import walk

# The attributes that hold a parameter of some torch.nn layer of `LEAF_PARAMETERS`: `x.<p>`
# of any other name (`self.classifier.requires_grad_(False)`) is no parameter of a leaf layer.
_PARAMETER_ATTRIBUTES = frozenset(name for names in LEAF_PARAMETERS.values() for name in names)


def parameter_flag_set(stmt: ast.stmt) -> tuple[ast.expr, str, bool] | None:
    """For `L.p.requires_grad = <bool literal>` or `L.p.requires_grad_(...)` as a statement,
    `p` an attribute some torch.nn layer keeps a parameter at (`weight`, `bias`): the layer
    `L`, `p`, and whether the flag is now off (False: set to require grad). None for any
    other statement."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if (
            isinstance(target, ast.Attribute)
            and target.attr == "requires_grad"
            and isinstance(target.value, ast.Attribute)
            and target.value.attr in _PARAMETER_ATTRIBUTES
            and (is_false(stmt.value) or is_true(stmt.value))
        ):
            return target.value.value, target.value.attr, is_false(stmt.value)
        return None
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "requires_grad_"
        and isinstance(func.value, ast.Attribute)
        and func.value.attr in _PARAMETER_ATTRIBUTES
    ):
        return func.value.value, func.value.attr, freezes_argument(call)
    return None


def frozen_by_attribute(block: list[ast.stmt], stmt: ast.stmt) -> tuple[ast.expr, frozenset[str]]:
    """For `stmt` of `block` freezing a parameter by attribute (`parameter_flag_set`): the
    layer, and the attributes of its parameters frozen by then (`stmt`'s and those of the
    statements before it in `block` that freeze one of that same layer, back to the nearest
    statement that may bind something at or under the layer's name, or set one of its
    parameters to require grad). Raises ValueError for a statement that freezes nothing."""
    found = parameter_flag_set(stmt)
    if found is None or not found[2]:
        raise ValueError("not a freeze of a parameter by attribute")
    layer, attribute, _ = found
    key = dotted(layer)
    frozen = {attribute}
    if key is None or not any(s is stmt for s in block):
        return layer, frozenset(frozen)
    index = next(i for i, s in enumerate(block) if s is stmt)
    for earlier in reversed(block[:index]):
        flag = parameter_flag_set(earlier)
        if flag is not None and dotted(flag[0]) == key:
            if not flag[2]:
                break  # set to require grad again: what was frozen before is not any more
            frozen.add(flag[1])
            continue
        if _binds_under(earlier, key):
            break
    return layer, frozenset(frozen)


def _binds_under(stmt: ast.stmt, key: str) -> bool:
    """Whether `stmt` may bind `key` or an attribute or item under it (or run code that does:
    any call, any nested block), so that a parameter frozen before it may not be the one
    the layer holds after it."""
    if not isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Expr | ast.Pass):
        return True  # a block, a `del`, a `with`...: not followed
    for node in walk(stmt):
        if isinstance(node, ast.Call):
            return True
        if isinstance(node, ast.Attribute | ast.Name | ast.Subscript) and isinstance(
            node.ctx, ast.Store | ast.Del
        ):
            written = dotted(node.value) if isinstance(node, ast.Subscript) else dotted(node)
            if written is None or written == key or written.startswith(key + "."):
                return True
            if key.startswith(written + "."):
                return True  # `self = ...` rebinds what `self.tok` means
    return False
