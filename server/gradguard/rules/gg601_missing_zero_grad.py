"""GG601 `missing-zero-grad`

## What it does
Finds a training loop that calls `backward()` and then `optimizer.step()` on every
iteration (or both in the same block, such as a GAN's generator update every k-th step),
itself or in a function or method of the file it calls on every iteration (`for batch in
loader: self.train_step(batch)`), but never clears that optimizer's gradients: no
`zero_grad()` (on the optimizer or a model, with or without `set_to_none`), no
`p.grad = ...` (`None` or a new tensor), no `p.grad.zero_()` or `p.grad.data.zero_()`
anywhere in the loop or in the functions of the file it calls, and no call to code the
analysis cannot see that might do it (code given the model, the optimizer, a parameter or
`self`, or named like a training step). Code in view is read
like any helper: a callback every caller of the function passes (`after_backward(model)`),
and for `self.hook()` every method of that name when only classes of the file define it (a
base trainer's hook and its overrides). Another optimizer's `zero_grad()` does not count:
it clears only its own parameters. An optimizer given as a parameter is known from its
use: a name like `optimizer`, `opt_g` or `optimizerD` whose `step()` or `zero_grad()` is
called. Gradient accumulation (backward every iteration, step and clearing every k steps) is
not reported; a step every k steps with no clearing at all in the loop is (each step then
applies everything since the start). A step guarded only against non-finite values (`if
torch.isfinite(grad_norm): optimizer.step()`, no `%` in the test) counts as a step on every
iteration: it skips a bad batch, it does not accumulate.

## Why is this bad?
`backward()` adds into `.grad`. Without clearing, every step uses the sum of all gradients
since the start of training: updates grow step after step, the loss oscillates or diverges,
and nothing raises.

## Example
```python
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```

## Use instead
```python
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```

## Fix safety
"Clear gradients before backward()" inserts `optimizer.zero_grad()` just before the
statement that calls `backward()`; for a step every k batches it is "Clear gradients after
each step", right after the step, which keeps the accumulation the loop intends. Stale
gradients are never wanted across every step, so the fix is safe.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from gradguard.analysis import torch_api as api
from gradguard.analysis.facts import (
    BackwardCall,
    FunctionNode,
    GradContext,
    LoopNode,
    ModuleCall,
    ModuleModeCall,
    ModuleRef,
    OptimizerCall,
    callee_name,
    dotted,
    identifier_spelling,
    innermost_first,
    module_nodes_of,
)
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.core.suppression import comments
from gradguard.core.text import SourceText
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import insert_after, insert_before, stands_alone

# Code that may clear gradients: `zero_grad(...)`, `set_to_none`, zeroing or filling a
# gradient in place (`p.grad.zero_()`, `p.grad.data.zero_()`), and any assignment to a
# gradient (`p.grad = None`, `p.grad.data = torch.zeros_like(p)`: the sum so far is gone).
_CLEARS = re.compile(
    r"zero_grad|set_to_none"
    r"|\.\s*grad(?:\s*\.\s*data)?\s*\.\s*(?:zero_|fill_)\s*\("
    r"|\.\s*grad(?:\s*\.\s*data)?\s*=(?!=)"
)


class MissingZeroGrad(Rule):
    """A training loop that never clears gradients."""

    code = "GG601"
    name = "missing-zero-grad"
    severity = Severity.ERROR
    summary = "training loop steps the optimizer but never clears gradients"

    valid = (
        # Accumulation whose step is also guarded against non-finite losses.
        """
import math
import torch
from torch import nn
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(8):
    loss = model(torch.randn(4, 3)).pow(2).mean() / 4
    loss.backward()
    if (step + 1) % 4 == 0 and math.isfinite(loss.item()):
        opt.step()
        opt.zero_grad()
""",
        """
import torch
from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(4):
    loss = model(torch.randn(4, 2)).pow(2).mean()
    loss.backward()
    if (i + 1) % 2 == 0:
        opt.step()
        opt.zero_grad()
""",
        # Cleared through a helper the analysis cannot see into.
        """
import torch
from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
def reset(optimizer):
    optimizer.zero_grad()
for i in range(4):
    reset(opt)
    loss = model(torch.randn(4, 2)).pow(2).mean()
    loss.backward()
    opt.step()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(1, 1, bias=False)
opt = torch.optim.SGD(model.parameters(), lr=0.4)
x = torch.ones(8, 1)
losses = []
for step in range(3):
    loss = (model(x) - 1.0).pow(2).mean()
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 100.0)
    if torch.isfinite(norm):
        opt.step()
    losses.append(loss.item())
assert losses[-1] < 0.01, "gradients accumulated across steps"
""",
            fixed="""
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(1, 1, bias=False)
opt = torch.optim.SGD(model.parameters(), lr=0.4)
x = torch.ones(8, 1)
losses = []
for step in range(3):
    loss = (model(x) - 1.0).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 100.0)
    if torch.isfinite(norm):
        opt.step()
    losses.append(loss.item())
assert losses[-1] < 0.01, "gradients accumulated across steps"
""",
            error="gradients accumulated across steps",
        ),
        Invalid(
            """
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(1, 1, bias=False)
opt = torch.optim.SGD(model.parameters(), lr=0.4)
x = torch.ones(8, 1)
losses = []
for step in range(3):
    loss = (model(x) - 1.0).pow(2).mean()
    loss.backward()
    opt.step()
    losses.append(loss.item())
assert losses[-1] < 0.01, "gradients accumulated across steps"
""",
            fixed="""
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(1, 1, bias=False)
opt = torch.optim.SGD(model.parameters(), lr=0.4)
x = torch.ones(8, 1)
losses = []
for step in range(3):
    loss = (model(x) - 1.0).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
assert losses[-1] < 0.01, "gradients accumulated across steps"
""",
            error="gradients accumulated across steps",
        ),
        Invalid(
            """
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(1, 1, bias=False)
opt = torch.optim.SGD(model.parameters(), lr=0.4)
x = torch.ones(8, 1)
losses = []
for step in range(6):
    if step % 2 == 0:
        loss = (model(x) - 1.0).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
assert losses[-1] < 0.01, "gradients accumulated across steps"
""",
            fixed="""
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(1, 1, bias=False)
opt = torch.optim.SGD(model.parameters(), lr=0.4)
x = torch.ones(8, 1)
losses = []
for step in range(6):
    if step % 2 == 0:
        loss = (model(x) - 1.0).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
assert losses[-1] < 0.01, "gradients accumulated across steps"
""",
            error="gradients accumulated across steps",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per loop that steps an optimizer after a backward without clearing."""
        reported: set[int] = set()
        facts: _FileFacts | None = None
        for step in ctx.analysis.events.of(OptimizerCall):
            if step.method != "step":
                continue
            found = _training_loop(ctx, step)
            # Gradient accumulation never cleared: clear after each step, not before each
            # backward (that would keep only the last batch's gradients).
            after_step = found is None
            found = found or _accumulating_loop(ctx, step)
            if found is None:
                continue
            loop, backward = found
            optimizer = expr_text(ctx.source, step.target)
            if facts is None:  # computed once, for the first candidate loop
                facts = _FileFacts.of(ctx)
            if id(loop) in reported or _may_clear(ctx, loop, step, backward, facts):
                continue
            reported.add(id(loop))
            message = compose(
                f"`{optimizer}` never clears gradients: each step applies the sum of all "
                "gradients so far",
                f"The loop at line {loop.lineno} calls backward() and `{optimizer}.step()` but "
                "never zero_grad()",
                f"Call `{optimizer}.zero_grad()` "
                + ("after each step" if after_step else "before backward()"),
            )
            related = [
                Related(ctx.node_range(backward.call), "gradients accumulate here"),
                Related(ctx.node_range(step.stmt), "and are applied here, on every pass"),
            ]
            fixes = []
            if after_step and stands_alone(ctx.source, step.stmt):
                edit = insert_after(ctx.source, step.stmt, f"{optimizer}.zero_grad()")
                fixes.append(Fix("Clear gradients after each step", Safety.SAFE, (edit,)))
            elif not after_step and stands_alone(ctx.source, backward.stmt):
                edit = insert_before(ctx.source, backward.stmt, f"{optimizer}.zero_grad()")
                fixes.append(Fix("Clear gradients before backward()", Safety.SAFE, (edit,)))
            yield self.finding(message, ctx.header_range(loop), related, fixes)


def _training_loop(ctx: RuleContext, step: OptimizerCall) -> tuple[LoopNode, BackwardCall] | None:
    """The loop whose iterations each run a backward() and then this `step()`: both on every
    iteration, or both in the same block of it (`if i % k == 0: loss.backward();
    opt.step()` still adds each update's gradients to the last one's). A backward on every
    iteration with the step every k-th is gradient accumulation, which is fine."""
    for loop in innermost_first(step.every_iteration):
        backward = next(
            (
                e
                for e in [*ctx.analysis.backward_calls, *ctx.analysis.backward_in_calls]
                if loop in e.every_iteration
            ),
            None,
        )
        if backward is not None:
            return loop, backward
    owner, block = ctx.analysis.block_of(step.stmt)
    if isinstance(owner, ast.If) and _finiteness_guard(owner.test):
        # `if torch.isfinite(grad_norm): optimizer.step()`: a guard against a bad batch, not
        # gradient accumulation; the step runs on every iteration whose gradients are finite.
        found = _guarded_step_loop(ctx, owner)
        if found is not None:
            return found
    ids = {id(stmt) for stmt in block}
    for event in ctx.analysis.backward_calls:
        if id(event.stmt) in ids and event.stmt.lineno < step.stmt.lineno and event.loops:
            loop = event.loops[-1]
            if event.function is step.function and _inside(step.stmt, loop):
                return loop, event
    return None


def _accumulating_loop(
    ctx: RuleContext, step: OptimizerCall
) -> tuple[LoopNode, BackwardCall] | None:
    """A loop whose every iteration runs a backward, with this step inside it on some of
    them (`if i % k == 0: optimizer.step()`): gradient accumulation, which is fine only when
    something in the loop clears the gradients (`_may_clear` decides, as for any loop)."""
    for event in [*ctx.analysis.backward_calls, *ctx.analysis.backward_in_calls]:
        for loop in innermost_first(event.every_iteration):
            if event.function is step.function and _inside(step.stmt, loop):
                return loop, event
    return None


_FINITENESS_CHECKS = frozenset({"isfinite", "isnan", "isinf"})


def _finiteness_guard(test: ast.expr) -> bool:
    """A test that checks values for NaN or infinity (`torch.isfinite(norm)`, `not
    math.isnan(loss.item())`) and nothing periodic (no `%`)."""
    checks = False
    for node in ast.walk(test):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return False
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            checks = checks or name in _FINITENESS_CHECKS
    return checks


def _guarded_step_loop(ctx: RuleContext, guard: ast.If) -> tuple[LoopNode, BackwardCall] | None:
    """The loop whose every iteration runs a backward and then `guard` (an `if` statement
    directly in its body)."""
    for event in [*ctx.analysis.backward_calls, *ctx.analysis.backward_in_calls]:
        for loop in innermost_first(event.every_iteration):
            in_body = any(stmt is guard for stmt in loop.body)
            if in_body and event.stmt.lineno < guard.lineno and _inside(guard, loop):
                return loop, event
    return None


def _inside(stmt: ast.stmt, loop: LoopNode) -> bool:
    end = loop.end_lineno or loop.lineno
    return loop.lineno < stmt.lineno <= end


def _holds(function: ast.FunctionDef | ast.AsyncFunctionDef, loop: LoopNode) -> bool:
    """True when `loop` is in the body of `function`."""
    return function.lineno < loop.lineno <= (function.end_lineno or function.lineno)


def _may_clear(
    ctx: RuleContext,
    loop: LoopNode,
    step: OptimizerCall,
    backward: BackwardCall,
    facts: _FileFacts,
) -> bool:
    """True when the loop, or a function of this file it calls, may clear this optimizer's
    gradients (any clearing but a `zero_grad()` of another optimizer the file knows), or
    when the loop calls code the analysis cannot see that might."""
    first, last = loop.lineno, loop.end_lineno or loop.lineno

    cuts = facts.cuts
    loop_calls = facts.opaque_calls_in(first, last)

    # Code only (`cuts`: where comments start): a comment saying "nothing calls zero_grad()"
    # clears nothing.
    def code(start: int, end: int) -> str:
        return "\n".join(ctx.source.line(i)[: cuts.get(i)] for i in range(start - 1, end))

    texts = [code(first, last)]
    for function in (step.function, backward.function):
        if function is not None and not _inside(function, loop) and not _holds(function, loop):
            # A step method called in the loop (`self.train_batch(x)`): its text too (not
            # the function holding the loop: a zero_grad() before the loop clears once).
            texts.append(code(function.lineno, function.end_lineno or function.lineno))
    seen: set[int] = set()
    pending = [function for call in loop_calls for function in facts.callees(call)]
    while pending:
        function = pending.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        texts.append(code(function.lineno, function.end_lineno or function.lineno))
        pending.extend(
            callee
            for node in ast.walk(function)
            if isinstance(node, ast.Call)
            for callee in facts.callees(node)
        )
    text = identifier_spelling("\n".join(texts))
    optimizer = expr_text(ctx.source, step.target)
    others = (facts.stepped - {optimizer}) | facts.separate_modules(step)
    for other in others:
        text = re.sub(rf"(?<![\w.]){re.escape(other)}\s*\.\s*zero_grad\(", "", text)
    if _CLEARS.search(text):
        return True
    return any(not facts.callees(call) and _may_clear_gradients(ctx, call) for call in loop_calls)


@dataclass(frozen=True)
class _FileFacts:
    """What every candidate loop of a file asks, gathered once (a file of thousands of
    training loops must not cost thousands of scans of all its events)."""

    context: GradContext  # the file's functions by name
    cuts: dict[int, int]  # 0-based line -> column where its comment starts
    stepped: frozenset[str]  # every stepped optimizer, as spelled
    # Modules built here that own all their parameters: (module, key, as spelled).
    modules: tuple[tuple[ModuleRef, str, str], ...]
    opaque_lines: tuple[int, ...]  # sorted, with `opaque` in the same order
    opaque: tuple[ast.Call, ...]
    resolved: dict[int, FunctionNode]  # calls of a function the analysis knew as a value
    methods: dict[str, tuple[FunctionNode, ...]]  # names only methods define, several times

    @classmethod
    def of(cls, ctx: RuleContext) -> _FileFacts:
        stepped = frozenset(
            expr_text(ctx.source, use.target)
            for use in ctx.analysis.events.of(OptimizerCall)
            if use.method == "step"
        )
        modules: dict[str, tuple[ModuleRef, str, str]] = {}
        for use in ctx.analysis.events.of(ModuleCall, ModuleModeCall):
            module = use.value.module
            if (
                module is not None
                and module.self_contained
                and (key := dotted(use.target)) is not None
            ):
                modules.setdefault(key, (module, key, expr_text(ctx.source, use.target)))
        calls = sorted(ctx.analysis.opaque_calls, key=lambda c: c.lineno)
        return cls(
            ctx.grad_context,
            _comment_columns(ctx.source),
            stepped,
            tuple(modules.values()),
            tuple(c.lineno for c in calls),
            tuple(calls),
            ctx.analysis.resolved_callees(),
            _overridden_methods(ctx.tree),
        )

    def callees(self, call: ast.Call) -> tuple[FunctionNode, ...]:
        """The functions of the file `call` may run: one defined once under its name, the
        one the analysis knew it called (a callback handed in: `on_step(model)`), or for
        `self.name(...)` every method of that name when only classes define it (a base
        class's hook and its override). Empty when the code run is not in view."""
        found = self.context.defined_once(callee_name(call.func))
        if found is not None:
            return (found,)
        if id(call) in self.resolved:
            return (self.resolved[id(call)],)
        func = call.func
        if isinstance(func, ast.Attribute) and dotted(func.value) == "self":
            return self.methods.get(func.attr, ())
        return ()

    def opaque_calls_in(self, first: int, last: int) -> tuple[ast.Call, ...]:
        """Calls of code the analysis cannot see on lines `first`..`last`."""
        return self.opaque[
            bisect_left(self.opaque_lines, first) : bisect_right(self.opaque_lines, last)
        ]

    def separate_modules(self, step: OptimizerCall) -> set[str]:
        """Modules whose `zero_grad()` cannot clear what the stepped optimizer holds: when
        it holds the parameters of a module built here that owns them all (`optimizerD`
        over `netD = Discriminator()`), every other such module (`netG`) has its own."""
        held = step.value.optimizes
        if held is None or held.others or not held.module.self_contained:
            return set()
        return {
            text
            for module, key, text in self.modules
            if module is not held.module and key != held.key
        }


def _comment_columns(source: SourceText) -> dict[int, int]:
    """Where each line's comment starts (0-based lines)."""
    if "#" not in source.text:
        return {}
    return {c.line: c.column for c in comments(source)}


def _overridden_methods(tree: ast.Module) -> dict[str, tuple[FunctionNode, ...]]:
    """Names defined more than once, every time as a method in a class body (a hook and its
    overrides), with all those definitions."""
    found: dict[str, list[FunctionNode]] = {}
    for node in module_nodes_of(tree, ast.ClassDef):
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                found.setdefault(stmt.name, []).append(stmt)
    methods = {id(f) for functions in found.values() for f in functions}
    for function in module_nodes_of(tree, ast.FunctionDef, ast.AsyncFunctionDef):
        if id(function) not in methods:
            found.pop(function.name, None)
    return {name: tuple(fs) for name, fs in found.items() if len(fs) > 1}


def _may_clear_gradients(ctx: RuleContext, call: ast.Call) -> bool:
    """Whether code the analysis cannot see may clear gradients here: when it is given the
    model, the optimizer, parameters or `self`, or when its name says it might (`step`,
    `train_batch`, `reset_grads`...). `print(...)`, `data.to(device)` or
    `logger.scalar_summary(tag, value)` cannot."""
    name = callee_name(call.func)
    if name is None:
        return True
    if name == "print" or name in api.INERT_METHODS:
        return False
    if id(call) in ctx.analysis.opaque_with_training_state:
        return True
    return any(hint in name.lower() for hint in _CLEARING_HINTS)


# Words in the name of a function or method that may clear gradients when called.
_CLEARING_HINTS = (
    "zero",
    "grad",
    "step",
    "optim",
    "clear",
    "reset",
    "backward",
    "train",
    "fit",
    "update",
    "learn",
    "accumul",
    "run",
    "loop",
    "epoch",
    "batch",
)
