"""Whether code of a file may change a tensor's shape in place.

`self.train_data = dataset` in `__init__` (every construction passing a `(64, 4)` tensor),
then `seq = self.train_data[i : i + n]` in another method: whatever else happens to that
tensor (an in-place op may give it history, so its autograd facts are another matter, see
`historyless_state`), its shape stays `(64, 4)` unless some code changes the shape of the
tensor object itself. Only a few operations can (torch 2.13.0): the in-place shape methods
(`resize_`, `resize_as_`, `set_`, `squeeze_`, `unsqueeze_`, `t_`, `transpose_`,
`swapdims_`, `swapaxes_`, `as_strided_`), a store into `.data` (which swaps in another
tensor's storage and shape), and an `out=` argument (torch resizes the output it is given).
An in-place op on a view of the tensor changes its values, never its shape.

So when the file names none of those methods (anywhere, on any receiver: the receiver may
be an alias), stores no `.data` and passes no `out=`, every tensor of the file keeps its
shape for life. Code outside the file that a tensor is handed to is trusted not to resize
it (no torch function but those above does).
"""

from __future__ import annotations

import ast

from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.walk import module_nodes_of

# Tensor methods that change the shape of their receiver (torch 2.13.0).
SHAPE_CHANGING_METHODS = frozenset(
    "resize_ resize_as_ set_ squeeze_ unsqueeze_ t_ transpose_ swapdims_ swapaxes_ "
    "as_strided_".split()
)


@cached_by_node
def may_reshape_in_place(tree: ast.Module) -> bool:
    """Whether some code of `tree` may change the shape of a tensor object: it names a
    shape-changing in-place method (as an attribute or a name), stores into `.data`, or
    passes `out=` to a call."""
    for node in module_nodes_of(tree, ast.Attribute, ast.Name, ast.Call):
        if isinstance(node, ast.Attribute):
            if node.attr in SHAPE_CHANGING_METHODS:
                return True
            if node.attr == "data" and isinstance(node.ctx, ast.Store | ast.Del):
                return True
        elif isinstance(node, ast.Name):
            if node.id in SHAPE_CHANGING_METHODS:
                return True
        elif isinstance(node, ast.Call) and any(kw.arg == "out" for kw in node.keywords):
            return True
    return False
