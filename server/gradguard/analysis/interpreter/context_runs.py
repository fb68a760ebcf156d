"""Running a function of the file once more for one call (see `contextual` for why and
what is taken from the run).

The run binds the call's arguments to the parameters (after the callers' joined facts, which
they refine), runs under the caller's grad mode unless a decorator sets one, records nothing
but the events a call's arguments decide (`_EVENTS_IN_CONTEXT`), and notes no call sites
(`ModuleInterpreter.calls_unnoted`). A summary asked for inside it is computed as outside
(`ModuleInterpreter.summary_of`). What it finds saved for backward while an inference tensor
it hands back to the caller (`ContextRun.inference_saved`): when that tensor is one of the
call's arguments, the mistake is the caller's (GG106 at `self.policy(batch["obs"])`).

One level: a run in context starts no other, except of a helper whose body is one `return`
(`_small`), which recursion cannot chain (a function is never run inside its own run), and
one more level for a call given an inference tensor (`_gives_inference`) or of a short helper
that calls no code of the file (`_leaf`: `binarize(p, threshold)`, whose branches the
outer call's arguments decide), or of a short helper that reports in context
(`reporting_helpers`: `self._run_block(block, h)` whose checkpoint `forward` hands its
input to). Such a helper's run reports under the outer call (`ModuleInterpreter.context_call`,
`model(x)`), each of its runs numbered apart (`CheckpointInput.run`). Results are kept
per pass by call, function, mode and argument facts.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradguard.analysis.events import CheckpointInput, Conversion, Event, LossInput
from gradguard.analysis.interpreter.contextual import ContextRun
from gradguard.analysis.interpreter.environment import GradMode
from gradguard.analysis.interpreter.reporting_helpers import short_reporting_helper
from gradguard.analysis.interpreter.statements import FunctionInterpreter
from gradguard.analysis.model import FunctionNode
from gradguard.analysis.names import root_name
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.values import NONE, UNKNOWN, Kind, Value, join
from gradguard.analysis.walk import own_nodes

if TYPE_CHECKING:
    from gradguard.analysis.interpreter.module import ModuleInterpreter

# Events a run in context reports: what a loss or a checkpoint is given in the function is
# this call's (a loss module's `forward` given softmax output), reported at the line inside.
_EVENTS_IN_CONTEXT: frozenset[type[Event]] = frozenset({LossInput, CheckpointInput, Conversion})


def run_in_context(
    module: ModuleInterpreter,
    node: FunctionNode,
    call: ast.Call,
    passed: dict[str, Value],
    mode: GradMode,
    *,
    shared: bool = False,
) -> ContextRun | None:
    """What running `node` with the arguments `call` passes (`passed`, by parameter name)
    under the caller's grad `mode` finds; None when it may not run now (inside another such
    run or the function itself, or a function of another file). A `shared` run (nothing
    passed) is kept for every call of `node` in that mode."""
    nested = module.in_context and not _small(node)
    if nested and (
        module.inference_nested
        or not (_gives_inference(passed) or _leaf(node) or short_reporting_helper(node))
    ):
        return None
    # A reporting helper run only for what it is handed inside the run of its caller
    # (`self.run_stage(stage, x)` in `forward`) reports under the outer call (`model(x)`):
    # what it finds holds for that call, not for every call of the helper.
    only_reports = (
        module.in_context and short_reporting_helper(node) and not _gives_inference(passed)
    )
    reported_at = module.context_call if only_reports and module.context_call else call
    if (
        module.collecting_globals
        or id(node) in module.in_progress
        or module.at_depth_limit
        or module.owner_of(node) is not module
    ):
        return None
    key: object = (None if shared else id(call), id(node), mode, tuple(passed.items()))
    try:
        known = module.context_results.get(key)
    except TypeError:  # an argument's facts cannot be hashed: run without keeping it
        key, known = None, None
    if known is not None:
        return known
    outer, module.in_context = module.in_context, True
    outer_call, module.context_call = module.context_call, reported_at
    outer_nested, module.inference_nested = (
        module.inference_nested,
        module.inference_nested or nested,
    )
    module.in_progress.add(id(node))
    try:
        with module.calls_unnoted():
            found = _run(module, node, call, passed, mode, reported_at)
    finally:
        module.in_context = outer
        module.context_call = outer_call
        module.inference_nested = outer_nested
        module.in_progress.discard(id(node))
    if key is not None:
        module.context_results[key] = found
    return found


def _gives_inference(passed: dict[str, Value]) -> bool:
    """An inference tensor among the arguments: a run inside a run follows it one level
    further (`per_token_logps(model, ids)` whose `model(ids)` embeds the inference `ids`), to
    tell whether it is saved for backward (see `ContextRun.inference_saved`)."""
    return any(value.inference and value.kind is Kind.TENSOR for value in passed.values())


# The statements a helper run inside another run may have (see `_leaf`).
_LEAF_STATEMENTS = 8
# Functions a helper run inside another run may call by name: built-ins that run no code of
# the file.
_LEAF_BUILTINS = frozenset(
    {"len", "float", "int", "bool", "min", "max", "abs", "isinstance", "range", "round", "sum"}
)


@cached_by_node
def _leaf(node: FunctionNode) -> bool:
    """A short helper that calls no code of the file (`def binarize(p, threshold=None): if
    threshold is not None: return (p > threshold).float()`; `return p`): run in context
    inside another run too, one level (a run inside it starts none), so that what the
    outer call passes decides its branches. Its calls are methods of objects other than
    `self` (`torch.sigmoid`, `x.float()`) and a few built-ins."""
    statements = 0
    for child in own_nodes(node.body):
        if isinstance(child, ast.stmt):
            statements += 1
            if statements > _LEAF_STATEMENTS or isinstance(child, ast.ClassDef):
                return False
        elif isinstance(child, ast.Call):
            func = child.func
            if isinstance(func, ast.Name):
                if func.id not in _LEAF_BUILTINS:
                    return False
            elif not isinstance(func, ast.Attribute) or _rooted_at_self(func):
                return False
    return True


def _rooted_at_self(expr: ast.expr) -> bool:
    root = root_name(expr)
    return root is not None and root.id in ("self", "cls", "super")


def _small(node: FunctionNode) -> bool:
    """A helper whose body is one `return` (`return x.detach().float(), y.float()`): run
    in context inside another run too, since it costs one expression and no helper of it
    starts a further run (its calls are in the expression, run from inside the run)."""
    return len(node.body) == 1 and isinstance(node.body[0], ast.Return)


def _run(
    module: ModuleInterpreter,
    node: FunctionNode,
    call: ast.Call,
    passed: dict[str, Value],
    mode: GradMode,
    reported_at: ast.Call,
) -> ContextRun:
    interpreter = FunctionInterpreter(module, module.scope_of(node), node, record=False)
    interpreter.events_in_context = _EVENTS_IN_CONTEXT
    interpreter.context = reported_at
    if reported_at is not call:
        module.helper_runs += 1
        interpreter.run_number = module.helper_runs
    if module.journal is not None:
        module.journal.entered(id(node))  # the run reads the callers' facts too
    interpreter.enter_function(node)
    if not any(interpreter.grad_mode_of(d, node) for d in node.decorator_list):
        interpreter.mode = mode  # a decorator's mode wins, as in any call
    env = interpreter.env
    if env is not None:
        for name, value in passed.items():
            if "." in name and name.split(".", 1)[0] in env:
                interpreter.bind_handed_layer(name, value)  # a layer (`self.embeddings`)
            elif name in env:
                env[name] = value  # a parameter
        # A parameter this call leaves out holds its default (`return_tensor=True`).
        for name, default in module.default_values(node).items():
            if name not in passed and name in env:
                env[name] = default
    interpreter.run_block(node.body)
    saved = tuple(interpreter.inference_saved)
    frozen = tuple(interpreter.frozen_parameters().items())
    if interpreter.returned is None and interpreter.env is None:
        return ContextRun(UNKNOWN, saved, frozen)
    return ContextRun(
        join(interpreter.returned, NONE if interpreter.env is not None else None), saved, frozen
    )
