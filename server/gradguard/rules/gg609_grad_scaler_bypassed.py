"""GG609 `grad-scaler-bypassed`

## What it does
Finds mixed-precision training that scales the loss with a `GradScaler` and then works on
the still-scaled gradients:

* `optimizer.step()` called directly after `scaler.scale(loss).backward()`, instead of
  `scaler.step(optimizer)`;
* `clip_grad_norm_` / `clip_grad_value_` after `scaler.scale(loss).backward()` and before
  `scaler.unscale_(optimizer)`, followed by `scaler.step(optimizer)`; also a clip that is
  the first thing a helper of the file does (`self._clip_gradients()`, defined once),
  reported in the helper; also a clip that is the first thing the body of an `if` does
  when the test is a configuration flag (`if cfg["grad_max_norm"] > 0:`) or a periodic
  accumulation test (`if (i + 1) % accum == 0:`, the scaler's step then following in the
  same body), not one that may tell whether the scaler is on (a negation, a read of the
  scaler or of an `enabled=` expression given to a GradScaler of the file, a call).

It fires only when the scaler is certain: every binding of its name in the file is a
`torch.amp.GradScaler(...)` (also `torch.GradScaler`, `torch.cuda.amp.GradScaler`, however
imported) not switched off by a literal `enabled=False` (`enabled=args.amp` counts: the
code is wrong whenever the scaler is on, which is what it is written for), or a parameter
(`def train(..., scaler)`) or an attribute storing one (`self.scaler = scaler`) whose
`.scale(loss)` is backpropagated, when the file builds no scaler that may be disabled. The
calls follow one another in one block with nothing between them that reads the scaler or
touches `.grad`.

## Why is this bad?
`scaler.scale(loss)` multiplies the loss by the scale factor (65536 at first), so every
gradient `backward()` writes is 65536 times too large. `scaler.step(optimizer)` divides
them back (and skips the step when they overflowed); `optimizer.step()` does neither. Nothing
raises: SGD-like optimizers take steps thousands of times too large, Adam-like ones run with
an epsilon effectively 65536 times smaller, and steps on inf/NaN gradients are not skipped.
Clipping before `unscale_` compares the scaled norm with `max_norm`: the clip almost always
fires and, once `scaler.step` unscales, leaves gradients with a norm of about
`max_norm / 65536`, so the model barely trains. Measured on CPU with torch 2.13.0
(`torch.amp.GradScaler("cpu")`, SGD, lr 0.1): the direct step moved a linear model's weight
by 5707 instead of 0.087, and clipping before
`unscale_` left a step of 1e-6 instead of 0.066.

## Example
```python
scaler.scale(loss).backward()
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
optimizer.step()
```

## Use instead
```python
scaler.scale(loss).backward()
scaler.unscale_(optimizer)
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
scaler.step(optimizer)
scaler.update()
```

## Fix safety
"Step through the scaler" replaces `optimizer.step()` by `scaler.step(optimizer)`, followed by
`scaler.update()` when the function never calls it. "Unscale before clipping" inserts
`scaler.unscale_(optimizer)` before the clip, for the optimizer of the one
`scaler.step(optimizer)` that follows in the block (and only when `scaler.update()` follows
it, so the next iteration's `unscale_` does not raise). Both are unsafe: they do what the
mixed-precision recipe means, but the training dynamics change (updates 65536 times smaller,
skipped overflow steps, a clip that stops firing), and hyperparameters tuned on the buggy
loop may need tuning again.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis import torch_api as api
from gradguard.analysis.facts import (
    BackwardCall,
    OptimizerCall,
    TorchCall,
    bindings_of,
    callee_name,
    dotted,
    parameter_names,
)
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text, replace_expr
from gradguard.rewrite.statements import insert_after, insert_before, stands_alone

_PREAMBLE = """
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(8, 3), torch.randn(8, 1)
before = model.weight.detach().clone()
optimizer.zero_grad()
loss = nn.functional.mse_loss(model(x), y)
"""
_REPORT = 'print("step-size", float((model.weight - before).detach().norm()))\n'


class GradScalerBypassed(Rule):
    """Gradients of a GradScaler-scaled loss used while still scaled."""

    code = "GG609"
    name = "grad-scaler-bypassed"
    severity = Severity.WARNING
    summary = "optimizer.step() or gradient clipping on gradients a GradScaler still scales"

    valid = (
        # The recipe: unscale, clip, step and update through the scaler.
        _PREAMBLE
        + """scaler.scale(loss).backward()
scaler.unscale_(optimizer)
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
scaler.step(optimizer)
scaler.update()
"""
        + _REPORT,
        # A disabled scaler hands the loss back unchanged: a direct step is harmless.
        _PREAMBLE.replace('GradScaler("cpu")', 'GradScaler("cpu", enabled=False)')
        + """scaler.scale(loss).backward()
optimizer.step()
"""
        + _REPORT,
        # Unscaled first, then stepped directly (no overflow check, but the right size).
        _PREAMBLE
        + """scaler.scale(loss).backward()
scaler.unscale_(optimizer)
optimizer.step()
scaler.update()
"""
        + _REPORT,
        # The clip runs after scaler.step: on the unscaled gradients, for nothing.
        _PREAMBLE
        + """scaler.scale(loss).backward()
scaler.step(optimizer)
scaler.update()
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
"""
        + _REPORT,
        # A loss that was never scaled, stepped directly.
        _PREAMBLE
        + """loss.backward()
optimizer.step()
"""
        + _REPORT,
    )

    invalid = (
        Invalid(
            _PREAMBLE
            + """scaler.scale(loss).backward()
optimizer.step()
"""
            + _REPORT,
            fixed=_PREAMBLE
            + """scaler.scale(loss).backward()
scaler.step(optimizer)
scaler.update()
"""
            + _REPORT,
            unsafe_fix=True,
        ),
        Invalid(
            _PREAMBLE
            + """scaler.scale(loss).backward()
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
scaler.step(optimizer)
scaler.update()
"""
            + _REPORT,
            fixed=_PREAMBLE
            + """scaler.scale(loss).backward()
scaler.unscale_(optimizer)
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
scaler.step(optimizer)
scaler.update()
"""
            + _REPORT,
            unsafe_fix=True,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per direct step or early clip after a scaled backward."""
        scalers = _certain_scalers(ctx)
        if not scalers:
            return
        steps = {
            id(u.stmt): u for u in ctx.analysis.events.of(OptimizerCall) if _is_step_statement(u)
        }
        clips = {
            id(t.stmt): t for t in ctx.analysis.torch_calls if t.qualified in api.GRAD_CLIPPERS
        }
        for event in ctx.analysis.backward_calls:
            scaler = _scaled_by(event, scalers)
            if scaler is None:
                continue
            _, block = ctx.analysis.block_of(event.stmt)
            start = _index(block, event.stmt)
            for stmt in block[start + 1 :]:
                if id(stmt) in steps:
                    yield from self._direct_step(ctx, scaler, event, steps[id(stmt)], block)
                    break
                if id(stmt) in clips:
                    yield from self._early_clip(ctx, scaler, event, clips[id(stmt)], block, stmt)
                    break
                clip = _clip_in_helper(ctx, stmt, clips, scaler)
                if clip is not None:
                    yield from self._early_clip(ctx, scaler, event, clip, block, stmt)
                    break
                guarded = _clip_under_if(ctx, stmt, clips, scaler)
                if guarded is not None:
                    clip, inner = guarded
                    yield from self._early_clip(ctx, scaler, event, clip, block, stmt, inner)
                    break
                if _reads_scaler_or_grad(stmt, scaler):
                    break

    def _direct_step(
        self,
        ctx: RuleContext,
        scaler: str,
        event: BackwardCall,
        step: OptimizerCall,
        block: list[ast.stmt],
    ) -> Iterator[Finding]:
        optimizer = expr_text(ctx.source, step.target)
        if any(_scaler_call(s, scaler, "step", optimizer) for s in block):
            return  # stepped through the scaler too: another bug, another message
        message = compose(
            f"`{optimizer}.step()` bypasses `{scaler}`: it steps on still-scaled gradients",
            f"It runs on the gradients of `{scaler}.scale(...).backward()` (line "
            f"{event.call.lineno}), still multiplied by the scale (65536 by default): the "
            "update is that much too large for SGD-like optimizers and overflowed steps are "
            "not skipped",
            f"Call `{scaler}.step({optimizer})` and `{scaler}.update()` instead",
        )
        related = [Related(ctx.node_range(event.call), "the gradients are scaled here")]
        fixes = _step_fix(ctx, scaler, step, optimizer, block)
        yield self.finding(message, ctx.node_range(step.stmt), related, fixes)

    def _early_clip(
        self,
        ctx: RuleContext,
        scaler: str,
        event: BackwardCall,
        clip: TorchCall,
        block: list[ast.stmt],
        anchor: ast.stmt,
        inner: ast.stmt | None = None,
    ) -> Iterator[Finding]:
        """`anchor`: the statement of `block` that clips (the clip, a call of a helper
        of the file clipping first thing, or an `if` whose body does); `inner`: for an
        `if`, the statement of its body that clips (where the fix unscales)."""
        at = _index(block, anchor)
        later = [s for s in block[at + 1 :] if _scaler_call(s, scaler, "step", None)]
        if isinstance(anchor, ast.If) and inner is not None:
            # `if (i + 1) % accum == 0:` clipping, then stepping through the scaler, in its
            # own body: the step that unscales is there.
            body = anchor.body
            stepped = body[_index(body, inner) + 1 :]
            within = [s for s in stepped if _scaler_call(s, scaler, "step", None)]
            if within:
                later, block = within, body
        if not later:
            return  # the scaler is not used to step here: GG609's first case or unknown
        function = clip.qualified.rsplit(".", 1)[-1]
        message = compose(
            f"`{function}` clips still-scaled gradients: the clip nearly always fires",
            f"It clips the gradients of `{scaler}.scale(...).backward()` (line "
            f"{event.call.lineno}) while they are still multiplied by the scale, and after "
            f"`{scaler}.step` unscales them the gradients are about the scale (65536 by "
            "default) times smaller than the limit",
            f"Call `{scaler}.unscale_(optimizer)` before clipping",
        )
        related = [
            Related(ctx.node_range(event.call), "the gradients are scaled here"),
            Related(ctx.node_range(later[0]), "unscaled only here"),
        ]
        helper = inner if inner is not None else anchor
        if helper is not clip.stmt:
            related.insert(1, Related(ctx.node_range(helper), "the clipping helper runs here"))
        fixes = _unscale_fix(ctx, scaler, anchor, later, block, inner)
        yield self.finding(message, ctx.node_range(clip.call), related, fixes)


def _clip_in_helper(
    ctx: RuleContext, stmt: ast.stmt, clips: dict[int, TorchCall], scaler: str
) -> TorchCall | None:
    """The clip a statement runs through a helper of the file (`self._clip_gradients()`):
    a function defined once in the file, called as the whole statement, whose own body
    clips in a statement of its own before anything there may touch the scaler or the
    gradients (no `unscale_` first)."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    defined = ctx.grad_context.defined_once(callee_name(stmt.value.func))
    if defined is None:
        return None
    for inner in defined.body:
        if id(inner) in clips:
            return clips[id(inner)]
        if _reads_scaler_or_grad(inner, scaler) or _unscales(inner):
            return None
    return None


def _clip_under_if(
    ctx: RuleContext, stmt: ast.stmt, clips: dict[int, TorchCall], scaler: str
) -> tuple[TorchCall, ast.stmt] | None:
    """The clip the body of an `if` runs first (`if cfg["grad_max_norm"] > 0:
    clip_grad_norm_(...)`), and the statement of the body that runs it (the clip or a
    call of a clipping helper): the body's first statement that may touch the scaler or
    the gradients, no `unscale_` before it. Only when the test cannot tell whether the
    scaler is on: it reads neither the scaler nor what the file passes as its
    `enabled=`, and negates nothing (`if not use_amp:` clips only without the scaler)."""
    if not isinstance(stmt, ast.If) or not _test_ignores_scaler(ctx, stmt.test, scaler):
        return None
    for inner in stmt.body:
        if id(inner) in clips:
            return clips[id(inner)], inner
        clip = _clip_in_helper(ctx, inner, clips, scaler)
        if clip is not None:
            return clip, inner
        if _reads_scaler_or_grad(inner, scaler) or _unscales(inner):
            return None
    return None


def _test_ignores_scaler(ctx: RuleContext, test: ast.expr, scaler: str) -> bool:
    """The test of an `if` says nothing of whether the scaler is on: no negation, no read
    of the scaler, of any `enabled=` expression given to a GradScaler in the file, nor a
    call (which might ask the scaler)."""
    switches = {
        ast.unparse(keyword.value)
        for call in ctx.analysis.torch_calls
        if call.qualified in api.GRAD_SCALERS
        for keyword in call.call.keywords
        if keyword.arg == "enabled"
    }
    for node in ast.walk(test):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return False
        if isinstance(node, ast.Compare) and any(
            isinstance(c, ast.Constant) and c.value is False for c in node.comparators
        ):
            return False
        if isinstance(node, ast.Call) or (isinstance(node, ast.expr) and dotted(node) == scaler):
            return False
        if isinstance(node, ast.expr) and ast.unparse(node) in switches:
            return False
    return True


def _unscales(stmt: ast.stmt) -> bool:
    """Whether `stmt` calls some `unscale_`."""
    return any(
        isinstance(node, ast.Attribute) and node.attr == "unscale_" for node in ast.walk(stmt)
    )


def _certain_scalers(ctx: RuleContext) -> set[str]:
    """Names (or `self.x` chains) every binding of which in the file is an enabled
    GradScaler construction, or, for one whose `.scale(loss)` is backpropagated, a
    parameter (`def train(..., scaler)`) or an attribute storing one (`self.scaler =
    scaler`), when the file builds no scaler that may be disabled."""
    built: dict[str, set[int]] = {}
    for call in ctx.analysis.torch_calls:
        stmt = call.stmt
        if call.qualified not in api.GRAD_SCALERS or not isinstance(stmt, ast.Assign):
            continue
        if stmt.value is not call.call or len(stmt.targets) != 1 or not _enabled(call.call):
            continue
        key = dotted(stmt.targets[0])
        if key is not None:
            built.setdefault(key, set()).add(id(stmt))
    handed_in = _scaled_names(ctx) if not _disabled_scaler_built(ctx) else set()
    if not built and not handed_in:
        return set()  # (the bindings cost a walk of the whole file)
    bound = bindings_of(ctx.tree)
    given = _attributes_given(ctx.tree) if handed_in else set()

    def certain(key: str) -> bool:
        bindings = bound.get(key, [])
        constructions = built.get(key, set())
        if key not in handed_in:
            return bool(bindings) and all(id(b) in constructions for b in bindings)
        return bool(bindings) and all(
            id(b) in constructions or isinstance(b, ast.arg) or id(b) in given for b in bindings
        )

    return {key for key in built.keys() | handed_in if certain(key)}


def _scaled_names(ctx: RuleContext) -> set[str]:
    """Names and `self.x` chains whose `.scale(loss)` is backpropagated."""
    return {key for e in ctx.analysis.backward_calls if (key := _scaling_receiver(e)) is not None}


def _disabled_scaler_built(ctx: RuleContext) -> bool:
    """Whether the file builds a GradScaler that is not certainly enabled (a literal
    `enabled=False`, unpacked arguments): one might be what a parameter receives."""
    return any(
        call.qualified in api.GRAD_SCALERS and not _enabled(call.call)
        for call in ctx.analysis.torch_calls
    )


def _attributes_given(tree: ast.Module) -> set[int]:
    """id() of the statements `self.scaler = scaler` that store a parameter of their own
    function, unchanged, on an attribute."""
    found: set[int] = set()
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        names = set(parameter_names(function))
        for stmt in ast.walk(function):
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Attribute)
                and isinstance(stmt.value, ast.Name)
                and stmt.value.id in names
            ):
                found.add(id(stmt))
    return found


def _enabled(call: ast.Call) -> bool:
    """Not switched off by a literal (`enabled=False`), nothing unpacked into the call. An
    `enabled=use_amp` scaler counts: when it is off, the code around it does nothing
    useful either, and when it is on (what the code is written for) the bug bites."""
    for keyword in call.keywords:
        if keyword.arg is None:
            return False
        if keyword.arg == "enabled":
            value = keyword.value
            if isinstance(value, ast.Constant) and not value.value:
                return False
    return len(call.args) <= 1 and not any(isinstance(a, ast.Starred) for a in call.args)


def _scaled_by(event: BackwardCall, scalers: set[str]) -> str | None:
    """The scaler of `<scaler>.scale(loss).backward()`, if certain."""
    key = _scaling_receiver(event)
    if key not in scalers or not isinstance(event.stmt, ast.Expr):
        return None
    return key


def _scaling_receiver(event: BackwardCall) -> str | None:
    """`x` (a name or dotted chain) of a backward call `x.scale(loss).backward()`."""
    target = event.target
    if event.via != "backward" or not isinstance(target, ast.Call):
        return None
    func = target.func
    if not (isinstance(func, ast.Attribute) and func.attr == "scale"):
        return None
    return dotted(func.value)


def _is_step_statement(use: OptimizerCall) -> bool:
    return (
        use.method == "step"
        and isinstance(use.stmt, ast.Expr)
        and use.stmt.value is use.node
        and isinstance(use.node, ast.Call)
        and not use.node.args
    )


def _index(block: list[ast.stmt], stmt: ast.stmt) -> int:
    return next(i for i, s in enumerate(block) if s is stmt)


def _reads_scaler_or_grad(stmt: ast.stmt, scaler: str) -> bool:
    """Whether `stmt` may use the scaler or change gradients (then nothing later is
    certain): it mentions the scaler, `.grad`, `zero_grad` or is not a plain statement."""
    if not isinstance(stmt, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign):
        return True
    for node in ast.walk(stmt):
        if isinstance(node, ast.expr) and dotted(node) == scaler:
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("grad", "zero_grad", "step"):
            return True
    return False


def _scaler_call(stmt: ast.stmt, scaler: str, method: str, argument: str | None) -> bool:
    """`<scaler>.<method>(...)` as a statement, given `argument` when one is named."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    func = call.func
    if not (
        isinstance(func, ast.Attribute) and func.attr == method and dotted(func.value) == scaler
    ):
        return False
    if argument is None:
        return True
    return len(call.args) == 1 and dotted(call.args[0]) == argument


def _step_fix(
    ctx: RuleContext, scaler: str, step: OptimizerCall, optimizer: str, block: list[ast.stmt]
) -> list[Fix]:
    """`optimizer.step()` -> `scaler.step(optimizer)`, plus `scaler.update()` when the
    function never calls it."""
    if not stands_alone(ctx.source, step.stmt) or dotted(step.target) is None:
        return []
    at = _index(block, step.stmt)
    function = step.function if step.function is not None else ctx.tree
    updates = [
        n
        for n in ast.walk(function)
        if isinstance(n, ast.stmt) and _scaler_call(n, scaler, "update", None)
    ]
    assert isinstance(step.node, ast.Call)
    edits = [replace_expr(ctx.source, step.node, f"{scaler}.step({optimizer})")]
    if not updates:
        edits.append(insert_after(ctx.source, step.stmt, f"{scaler}.update()"))
    elif not any(u in block[at + 1 :] for u in updates):
        return []
    return [Fix("Step through the scaler", Safety.UNSAFE, tuple(edits))]


def _unscale_fix(
    ctx: RuleContext,
    scaler: str,
    clip: ast.stmt,
    later: list[ast.stmt],
    block: list[ast.stmt],
    inner: ast.stmt | None = None,
) -> list[Fix]:
    """`scaler.unscale_(optimizer)` before the statement that clips (`clip`, or `inner`
    in the body of the `if` that `clip` is), for the one optimizer stepped after."""
    at_clip = inner if inner is not None else clip
    if len(later) != 1 or not stands_alone(ctx.source, at_clip):
        return []
    step = later[0]
    assert isinstance(step, ast.Expr) and isinstance(step.value, ast.Call)
    if len(step.value.args) != 1 or step.value.keywords:
        return []
    at = _index(block, step)
    if not any(_scaler_call(s, scaler, "update", None) for s in block[at + 1 :]):
        return []
    optimizer = expr_text(ctx.source, step.value.args[0])
    edit = insert_before(ctx.source, at_clip, f"{scaler}.unscale_({optimizer})")
    return [Fix("Unscale before clipping", Safety.UNSAFE, (edit,))]
