"""Whether an instance a loop calls a method on keeps its state from one iteration to the
next: `meter.update(loss)` on a meter built before the loop adds to the sums the previous
iteration left; on a meter built, or reset, in the loop it starts afresh.

Certain only when the loop never rebinds the receiver (nor anything it is reached through),
never hands it to other code, and calls on it (and on what it is reached through) only
methods of the file that certainly leave the attribute alone.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from gradguard.analysis.interpreter.summary import changed_self_attributes
from gradguard.analysis.model import FunctionNode, LoopNode
from gradguard.analysis.names import dotted

# The class of the file the value a key names is an instance of, and the method of that
# class (its own or inherited) a name looks up, when certain.
ClassOf = Callable[[str], ast.ClassDef | None]
MethodOf = Callable[[ast.ClassDef, str], FunctionNode | None]


def state_held_across(
    loop: LoopNode,
    key: str,
    attr: str,
    call: ast.Call,
    class_of: ClassOf,
    method_of: MethodOf,
) -> bool:
    """True when `key.<attr>`, changed by `call` (`key.method(...)`) on every iteration of
    `loop`, is certainly the same attribute of the same instance on the next iteration:
    nothing in the loop rebinds `key` or a name it is reached through (`meter = Meter()`,
    `self.meters = ...`, the loop's own target), hands `key` to other code, or calls a
    method on it, or on what it is reached through, that may change the attribute (a
    `meter.reset()`, an unknown or inherited method)."""
    prefixes = _prefixes(key)
    # Expressions read through: the base of an attribute (`meter.avg`, `meter.update`).
    bases = {id(node.value) for node in ast.walk(loop) if isinstance(node, ast.Attribute)}
    for node in ast.walk(loop):
        if node is call:
            continue
        if isinstance(node, ast.Name | ast.Attribute):
            spelled = dotted(node)
            if spelled in prefixes and not isinstance(node.ctx, ast.Load):
                return False  # rebound (or deleted) in the loop
            if spelled == key and id(node) not in bases:
                return False  # handed to other code, which may reset it
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = dotted(node.func.value)
            if receiver in prefixes and not _leaves_alone(
                receiver, node.func.attr, key, attr, class_of, method_of
            ):
                return False
    return True


def _prefixes(key: str) -> frozenset[str]:
    """`self.meter` -> {"self", "self.meter"}: the names `key` is reached through."""
    parts = key.split(".")
    return frozenset(".".join(parts[: i + 1]) for i in range(len(parts)))


def _leaves_alone(
    receiver: str,
    name: str,
    key: str,
    attr: str,
    class_of: ClassOf,
    method_of: MethodOf,
) -> bool:
    """True when `receiver.name(...)` certainly leaves `key.<attr>` alone: `receiver` is an
    instance of a class of the file and `name` a method of it that changes no attribute on
    the way to `key.<attr>` (`self.train_step(x)` changing nothing of `self.meter`), or an
    attribute of it that is not a method (`self.model(x)` changes nothing of `self`)."""
    owner = class_of(receiver)
    if owner is None:
        return False
    method = method_of(owner, name)
    # The attribute of `receiver` on the way to `key.<attr>`.
    rest = f"{key}.{attr}"[len(receiver) + 1 :]
    changed_here = rest.split(".")[0]
    if method is None:
        # Not a method: a callable attribute (a module held on the instance) changes
        # nothing of the instance, unless the name is the very attribute.
        return name != changed_here and _assigned_attribute(owner, name)
    changed = changed_self_attributes(method, owner)
    return changed is not None and changed_here not in changed


def _assigned_attribute(owner: ast.ClassDef, name: str) -> bool:
    """True when some method of `owner` assigns `self.<name>` (so `self.<name>(...)` calls
    what it holds, not a method)."""
    return any(
        isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and node.attr == name
        for node in ast.walk(owner)
    )
