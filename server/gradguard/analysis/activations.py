"""The last activation applied to a tensor (`values.Activation`): who sets it, who keeps it.

Producers set it: softmax, log_softmax and sigmoid (functions, tensor methods, `nn` layers),
and `nn.Linear`, whose output is unbounded logits. Ops that only move, cast or reshape
values keep it (`api.ACTIVATION_KEEPING_*`). Every other op builds a fresh value, which has
none, so "any other op clears it" needs no code here; in-place changes clear it explicitly
(see `FunctionInterpreter`). An `nn.Sequential` ends with its last layer's activation, a
module of the file with what its `forward` returns.
"""

from __future__ import annotations

import ast
import dataclasses

from gradguard.analysis import torch_api as api
from gradguard.analysis.values import Activation, ActivationKind, Kind, ModuleRef, Value, evolve


def of_function(call: ast.Call, qualified: str, args: list[Value]) -> Activation | None:
    """`torch.softmax(x, 1)`, `F.sigmoid(x)`; `torch.reshape(p, ...)` keeps `p`'s."""
    kind = api.ACTIVATION_FUNCTIONS.get(qualified)
    if kind is not None:
        description = f"{ast.unparse(call.func)}()"
        return Activation(ActivationKind(kind), call, description, functional=True)
    keeps = qualified in api.ACTIVATION_KEEPING_FUNCTIONS and call.args and args
    if keeps and not isinstance(call.args[0], ast.Starred):
        return args[0].activation
    return None


def of_method(call: ast.Call, name: str, receiver: Value) -> Activation | None:
    """`x.softmax(1)`, `x.sigmoid()` on a tensor; `p.view(...)`, `p.float()` keep `p`'s."""
    kind = api.ACTIVATION_METHODS.get(name)
    if kind is not None:
        return Activation(ActivationKind(kind), call, f".{name}()", functional=True)
    if name in api.ACTIVATION_KEEPING_METHODS:
        return receiver.activation
    return None


def of_layer(call: ast.Call, qualified: str) -> Activation | None:
    """What a freshly built `torch.nn` layer (`nn.Softmax(dim=1)`, `nn.Linear(8, 2)`) applies
    to whatever it is called on."""
    if not qualified.startswith("torch.nn."):
        return None
    kind = api.ACTIVATION_MODULES.get(qualified.rsplit(".", 1)[-1])
    if kind is None:
        return None
    return Activation(ActivationKind(kind), call, f"nn.{qualified.rsplit('.', 1)[-1]}")


def of_sequential(call: ast.Call, layers: list[Value]) -> Activation | None:
    """`nn.Sequential(..., nn.Softmax(dim=1))`: its output ends with the last layer's."""
    if not call.args or call.keywords or len(layers) < len(call.args):
        return None
    last_expr = call.args[-1]
    last = layers[len(call.args) - 1]
    if isinstance(last_expr, ast.Starred) or last.kind is not Kind.MODULE or last.module is None:
        return None
    applies = last.module.applies
    if applies is None or applies.layer:
        return applies
    return Activation(applies.kind, last_expr, applies.description, layer=True)


def of_module_call(call: ast.Call, module: ModuleRef) -> Activation | None:
    """`softmax(x)` for a module built as `nn.Softmax(...)`: applied at this call; an
    `nn.Sequential`: at its last layer."""
    applies = module.applies
    if applies is None or applies.layer:
        return applies
    return Activation(applies.kind, call, applies.description)


def kept(result: Value, source: Value) -> Value:
    """`result`, an op that only picks values of `source` (`probs[mask]`), with `source`'s
    activation."""
    if source.activation is None or result.activation == source.activation:
        return result
    return evolve(result, activation=source.activation)


def cleared(value: Value) -> Value:
    """`value` after an in-place change: its values are no longer what the activation made."""
    if value.activation is None:
        return value
    return evolve(value, activation=None)


def module_cleared(value: Value) -> Value:
    """A module after a change of its layers (`seq.append(...)`, `seq[-1] = ...`)."""
    if value.module is None or value.module.applies is None:
        return value
    return evolve(value, module=dataclasses.replace(value.module, applies=None))
