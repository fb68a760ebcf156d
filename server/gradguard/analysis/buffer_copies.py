"""Whether code of a file may replace a module's buffers by copies.

`self.register_buffer("cos", cos)` keeps that very tensor: every method reading `self.cos`
reads it, with all it is (an inference tensor made under `torch.inference_mode()` stays
one). Casting the module replaces each buffer by what the cast gives: `model.to(device)`,
`.cuda()`, `.half()`, `.double()` (also of a module holding this one) give a copy made
outside inference mode (a normal tensor) whenever the device or dtype changes, and the same
tensor otherwise, which a static reading cannot tell apart. Copying the whole module
(`copy.deepcopy(model)`, or `torch.load` of a pickled one) gives an instance whose buffers
are new tensors too.

`may_copy_buffers` answers for the whole file, syntactically: True when some call may cast
a module (a cast method called on anything but a tensor a `torch.` function just made, as in
`torch.arange(n).float()`), or the file names `deepcopy`, `torch.load` or a pickling module. Only a
file where it is False keeps what a buffer is across the methods of its class.
"""

from __future__ import annotations

import ast

from gradguard.analysis.names import dotted
from gradguard.analysis.walk import module_nodes_of

# nn.Module methods that replace every buffer by the result of a cast (checked against
# torch 2.13.0: `Module._apply` stores `fn(buf)` for each buffer).
MODULE_CASTS = frozenset(
    "to cuda cpu xpu ipu mtia half float double bfloat16 type to_empty _apply".split()
)
# Names of whole-object copies: a copied module's buffers are new tensors.
_COPIES = frozenset({"deepcopy", "pickle", "dill", "cloudpickle"})


def may_copy_buffers(tree: ast.Module) -> bool:
    """Whether some code of `tree` may replace a module's buffers by copies (see the
    module docs); False only when nothing in the file can."""
    for node in module_nodes_of(tree, ast.Call, ast.Name, ast.Attribute, ast.alias):
        if isinstance(node, ast.Name) and node.id in _COPIES:
            return True
        if isinstance(node, ast.alias) and set(node.name.split(".")) & _COPIES:
            return True
        if isinstance(node, ast.Attribute) and node.attr in _COPIES:
            return True
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if dotted(node.func) == "torch.load":
            return True
        if node.func.attr in MODULE_CASTS and not _made_by_torch(node.func.value):
            return True
    return False


def _made_by_torch(expr: ast.expr) -> bool:
    """`torch.arange(n)`, `torch.arange(n).float()[::2]`: a tensor a `torch.` function (not a
    `torch.nn` class) made, through tensor methods and indexing."""
    while True:
        if isinstance(expr, ast.Subscript):
            expr = expr.value
            continue
        if not isinstance(expr, ast.Call):
            return False
        name = dotted(expr.func)
        if name is not None and name.startswith("torch."):
            head = name.split(".")[1]
            return head[:1].islower() and head not in ("nn", "load", "jit", "compile")
        if not isinstance(expr.func, ast.Attribute):
            return False
        expr = expr.func.value
