"""GG604 `optimizer-stale-parameters`

## What it does
Finds an optimizer built from `model.parameters()` that keeps stepping after the model got
parameters it does not hold: a new layer assigned onto the model (`model.fc = nn.Linear(...)`,
`model[-1] = nn.Linear(...)` on an `nn.Sequential`), a new `nn.Parameter(...)` bound to one
of its parameters (`model.scale = nn.Parameter(...)`, or `self.scale = ...` in a method
called on the model), or the name re-bound to a new model (`model = Net()`), followed by
`optimizer.step()` on the old optimizer and a call of the model, there or in a function
every caller hands the stale optimizer and the model to
(`train(model, loader, optimizer)` after the replacement); for a re-bound name, also a
function called after the re-binding, in the same block, with the new model and the stale
optimizer (`fit(model, optimizer)` before and after `model = Net(16)`: that second run
steps the old parameters while it calls the new model). A function of the file that sets
an attribute of a module it is given (`def load_checkpoint(path, model): model.embedding =
nn.Embedding(...)`, on some way through it) replaces that layer for its callers: the finding
is where the function replaces it, for a call made after the optimizer was built. In a
class that keeps the optimizer built in `__init__` (`self.optimizer = Adam(self.model.
parameters())`), a method replacing a layer of `self.model`, or re-binding `self.model`
itself to a new model (`self.model = build_model()` in `resume()`, when `__init__` stores
`self.model` once and every other store of it is built by a call), stales it for the rest
of that method, and for a method that steps it and calls `self.model` when the file calls that
method (or one reaching it through `self.<method>()`) on the same instance after the
replacing one (`trainer.new_head(5)`, then `trainer.fit(loader)`). A layer set by
`setattr(model, "fc", new)`, or by `setattr(model, name, new)` in a loop over a literal
tuple of names, counts as assigned; so does a new parameter a method of a submodule the
forward runs gives it (`model.norm.recalibrate(x)`); a new model of a subclass of the file
that adds nothing to its base (`class Wider(Net):` with only a docstring) is built as its
base is; and an optimizer returned by a one-line builder of the file (`return
torch.optim.SGD(model.parameters(), lr=lr)`) holds what the model it is given has then.

It fires only when the analysis is certain: the model is built in the file, the new module is
built right there and has parameters, the model's forward runs it (any child of an
`nn.Sequential`, or `self.<name>` read in the forward of a class of the file; for a new
parameter, also one the class registers in `__init__`), and nothing
can have handed the new parameters to the optimizer (`add_param_group`, `param_groups`,
`load_state_dict`, the optimizer passed to other code). `model.to(device)`, `model.cuda()`
and `model = model.to(device)` keep the very same parameter objects: they are not replacements,
nor are `p.copy_(...)` under `torch.no_grad()` and `p.data.copy_(...)` (they change the
parameter the optimizer holds in place).

## Why is this bad?
An optimizer stores references to the parameter tensors it was given when it was built.
Parameters created later are not among them: `backward()` fills their `.grad`, but
`optimizer.step()` never reads it, so the new head keeps its random initial weights while
the loss goes down only as far as the old parameters can take it. Nothing raises; the model
silently never learns the part that was replaced (often the classifier of a fine-tuned
network).

## Example
```python
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model.fc = nn.Linear(512, 10)  # new head: not in the optimizer
for x, y in loader:
    optimizer.zero_grad()
    criterion(model(x), y).backward()
    optimizer.step()
```

## Use instead
```python
model = Net()
model.fc = nn.Linear(512, 10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
```
or keep the optimizer and add the new parameters:
`optimizer.add_param_group({"params": model.fc.parameters()})`.

## Fix safety
"Build the optimizer after the replacement" moves the optimizer's construction to just after
the statement that replaces the parameters. It is offered only when both statements are in
the same block and the statements between them neither mention the optimizer nor re-bind
any name its construction reads, so the optimizer is built from the same arguments, only
later: with the parameters the model now has. That is what the code meant, so the fix is
safe. Where that cannot be decided (the replacement in another block, an `lr` changed in
between, a scheduler built on the optimizer before the replacement) no fix is offered.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import (
    ModuleCall,
    OptimizedParameters,
    OptimizerCall,
    Replacement,
    StaleOptimizer,
    arguments_by_parameter,
    called_after,
    method_class,
    within,
)
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import (
    delete_statement,
    insert_after,
    stands_alone,
    trailing_comment,
)

# Ways an optimizer can be given parameters after it was built.
_EXTENDS_OPTIMIZER = frozenset(["param_groups", "add_param_group", "load_state_dict"])


class OptimizerStaleParameters(Rule):
    """An optimizer that does not hold the parameters the model now trains with."""

    code = "GG604"
    name = "optimizer-stale-parameters"
    severity = Severity.ERROR
    summary = "optimizer built before the model's parameters were replaced never updates them"

    valid = (
        # Module.to() keeps the parameter objects.
        """
import torch
from torch import nn
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model = model.to("cpu")
model.to(torch.float32)
loss = model(torch.randn(8, 4)).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
""",
        # The optimizer is rebuilt after the new head.
        """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model[2] = nn.Linear(8, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss = model(torch.randn(8, 4)).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
""",
        # The new head is added to the optimizer.
        """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))

model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model.fc = nn.Linear(8, 3)
optimizer.add_param_group({"params": model.fc.parameters()})
loss = model(torch.randn(8, 4)).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
""",
        # The head is replaced before the optimizer is built.
        """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))

model = Net()
model.fc = nn.Linear(8, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss = model(torch.randn(8, 4)).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
""",
        # A helper replaces the head and hands its parameters to the optimizer.
        """
import torch
from torch import nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 2)
    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))
def new_head(model, optimizer):
    model.fc = nn.Linear(8, 3)
    optimizer.add_param_group({"params": model.fc.parameters()})
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
new_head(model, optimizer)
loss = model(torch.randn(8, 4)).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
""",
        # The replacement has no parameters of its own (the old head is dropped).
        """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))

model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model.fc = nn.Identity()
loss = model(torch.randn(8, 4)).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))

model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model.fc = nn.Linear(8, 3)
for step in range(3):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
            fixed="""
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))

model = Net()
model.fc = nn.Linear(8, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
model[-1] = nn.Linear(8, 3)
loss = model(torch.randn(8, 4)).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
""",
            fixed="""
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model[-1] = nn.Linear(8, 3)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss = model(torch.randn(8, 4)).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
""",
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model = nn.Linear(4, 2)  # start over with a fresh model
for step in range(3):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(4, 2)
model = nn.Linear(4, 2)  # start over with a fresh model
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
        ),
        # A helper of the file replaces the head (loading a checkpoint with other labels).
        Invalid(
            """
import torch
from torch import nn

def resize_head(model, classes):
    model[-1] = nn.Linear(model[-1].in_features, classes)

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
resize_head(model, 3)
before = model[-1].weight.detach().clone()
loss = model(torch.randn(8, 4)).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
assert not torch.equal(before, model[-1].weight), "the new head never trained"
""",
            fixed="""
import torch
from torch import nn

def resize_head(model, classes):
    model[-1] = nn.Linear(model[-1].in_features, classes)

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
resize_head(model, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
before = model[-1].weight.detach().clone()
loss = model(torch.randn(8, 4)).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
assert not torch.equal(before, model[-1].weight), "the new head never trained"
""",
            error="the new head never trained",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per replacement that an optimizer steps past."""
        called = {
            id(u.value.module)
            for u in ctx.analysis.events.of(ModuleCall)
            if u.value.module is not None
        }
        seen: set[tuple[int, int]] = set()
        for use in ctx.analysis.events.of(OptimizerCall):
            if use.method != "step":
                continue
            built = use.value.optimizes
            replacement = built.stale if built is not None else None
            if built is None or replacement is None:
                continue
            if (
                replacement.rebound
                and id(replacement.module) not in called
                and not _hands_new_model(ctx, use, replacement)
            ):
                continue  # the new model is never called: maybe not the one trained
            if not replacement.rebound and not (
                _called_after(ctx, use, built.key, replacement)
                or _runs_replaced(ctx, use, replacement)
            ):
                continue
            key = (id(built.stmt), id(replacement.stmt))
            if key in seen or _extended_elsewhere(ctx, use):
                continue
            seen.add(key)
            yield self._finding(ctx, use, built, replacement)
        yield from self._across_methods(ctx, seen)

    def _across_methods(self, ctx: RuleContext, seen: set[tuple[int, int]]) -> Iterator[Finding]:
        """A method replaces a layer of `self.<m>` whose optimizer `__init__` keeps in
        `self.<opt>`, and a method stepping `self.<opt>` and calling `self.<m>` is called on
        the same instance after it (`trainer.new_head(); trainer.fit(loader)`)."""
        stale = [
            e
            for e in ctx.analysis.events.of(StaleOptimizer)
            if e.optimizer.startswith("self.") and e.context is None
        ]
        if not stale:
            return
        for use in ctx.analysis.events.of(OptimizerCall):
            built = use.value.optimizes
            if use.method != "step" or built is None or built.stale is not None:
                continue
            cls = method_class(ctx.tree, use.function)
            if cls is None or use.function is None or _extended_elsewhere(ctx, use):
                continue
            for event in stale:
                new = event.stale.optimizes.stale if event.stale.optimizes else None
                if (
                    new is None
                    or event.stale.optimizes is None
                    or event.stale.optimizes.call is not built.call
                    or event.function is use.function
                    or method_class(ctx.tree, event.function) is not cls
                    or (id(built.stmt), id(new.stmt)) in seen
                    or (
                        not _calls_module(ctx, use.function, new)
                        and not (new.rebound and _calls_attribute(ctx, use.function, new.target))
                    )
                ):
                    continue
                assert isinstance(event.function, ast.FunctionDef | ast.AsyncFunctionDef)
                name = getattr(use.function, "name", "")
                later = called_after(ctx.tree, cls, event.function.name, name)
                if later is not None:
                    seen.add((id(built.stmt), id(new.stmt)))
                    after = Related(ctx.node_range(later), "runs the step after the replacement")
                    yield self._finding(ctx, use, built, new, after)

    def _finding(
        self,
        ctx: RuleContext,
        step: OptimizerCall,
        built: OptimizedParameters,
        new: Replacement,
        *extra: Related,
    ) -> Finding:
        optimizer = expr_text(ctx.source, step.target)
        target = _spelt(ctx, new.target)
        built_at = built.stmt.lineno
        if new.rebound:
            message = compose(
                f"`{target}` is re-bound after `{optimizer}` was built: the new model never trains",
                f"`{optimizer}` was built from the old model's parameters (line {built_at}), so "
                f"`{optimizer}.step()` (line {step.stmt.lineno}) updates the old model only",
            )
        else:
            where = ""
            if new.through is not None:
                where = f", by the call at line {new.stmt.lineno}"
            fresh = new.new_parameter
            what = "new parameter" if fresh else "new layer"
            updated = "new parameter" if fresh else "new layer's parameters"
            message = compose(
                f"`{target}` is replaced after `{optimizer}` was built: the {what} never trains",
                f"`{optimizer}` was built from `{built.key}.parameters()` (line {built_at}) before "
                f"the replacement{where}, so `{optimizer}.step()` (line {step.stmt.lineno}) never "
                f"updates the {updated}",
            )
        related = [
            Related(
                ctx.node_range(built.call),
                f"`{optimizer}` holds the parameters `{built.key}` had here",
            ),
            Related(ctx.node_range(step.node), "steps without the new parameters"),
        ]
        if new.through is not None:
            related.append(Related(ctx.node_range(new.stmt), "the call that replaces the layer"))
        related.extend(extra)
        fix = _move_construction(ctx, built, new)
        shown = new.through if new.through is not None else new.stmt
        return self.finding(message, ctx.node_range(shown), related, [fix] if fix else [])


def _spelt(ctx: RuleContext, target: ast.expr) -> str:
    """The replaced target as written; `model.fc1` for the attribute a `setattr(model, name,
    new)` sets (the analysis names it, located at the call, see `set_attributes`)."""
    text = expr_text(ctx.source, target)
    if isinstance(target, ast.Attribute) and not text.endswith(target.attr):
        return ast.unparse(target)
    return text


def _called_after(ctx: RuleContext, step: OptimizerCall, key: str, new: Replacement) -> bool:
    """True when `key(...)` is called after the replacement, in the function of the step."""
    scope: ast.AST = step.function if step.function is not None else ctx.tree
    return any(
        isinstance(node, ast.Call)
        and node.lineno > (new.stmt.end_lineno or new.stmt.lineno)
        and expr_text(ctx.source, node.func) == key
        for node in ast.walk(scope)
    )


def _calls_module(ctx: RuleContext, function: ast.AST, new: Replacement) -> bool:
    """True when `function` calls the module whose forward runs the new layer."""
    return any(
        use.function is function and use.value.module is new.module
        for use in ctx.analysis.events.of(ModuleCall)
    )


def _calls_attribute(ctx: RuleContext, function: ast.AST, target: ast.expr) -> bool:
    """True when `function` calls `self.<m>(...)` itself, the attribute a method re-bound to
    a new module (`target`): after that method ran, the call runs the new module."""
    text = expr_text(ctx.source, target)
    return any(
        isinstance(node, ast.Call) and expr_text(ctx.source, node.func) == text
        for node in ast.walk(function)
    )


def _runs_replaced(ctx: RuleContext, step: OptimizerCall, new: Replacement) -> bool:
    """True when the step is in a function the optimizer was handed to after the
    replacement (`train(model, loader, optimizer)`, every caller passing it stale), and that
    function calls the very module whose forward runs the new layer."""
    function = step.function
    if function is None or within(new.stmt, function):
        return False
    replacing = ctx.grad_context.enclosing_function(new.stmt)
    if any(
        isinstance(node, ast.Attribute) and node.attr in ("param_groups", "add_param_group")
        for node in ast.walk(replacing if replacing is not None else ctx.tree)
    ):
        return False  # the optimizer may be given the new parameters on the way
    return any(
        use.function is function and use.value.module is new.module
        for use in ctx.analysis.events.of(ModuleCall)
    )


def _hands_new_model(ctx: RuleContext, step: OptimizerCall, new: Replacement) -> bool:
    """True when the step is in a function of the file that calls a module it is given
    (`net(x)` with `net` a parameter), and a call of that function after the re-binding, in
    the same block, hands it the re-bound name for that parameter and the stale optimizer's
    name for the optimizer (`run_stage(net, optimizer)` after `net = widen(net)`), neither
    name bound again between: that run steps the old parameters and calls the new model,
    whatever other calls hand it (`run_stage` called before the re-binding too)."""
    function, built = step.function, step.value.optimizes
    target, receiver = new.target, step.target
    if (
        not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        or built is None
        or not isinstance(built.stmt, ast.Assign)
        or len(built.stmt.targets) != 1
        or not isinstance(optimizer := built.stmt.targets[0], ast.Name)
        or not isinstance(target, ast.Name)
        or not isinstance(receiver, ast.Name)
        or within(new.stmt, function)
    ):
        return False
    modules = {
        use.target.id
        for use in ctx.analysis.events.of(ModuleCall)
        if use.function is function and isinstance(use.target, ast.Name)
    }
    _, block = ctx.analysis.block_of(new.stmt)
    after = block[next(i for i, s in enumerate(block) if s is new.stmt) + 1 :]
    for stmt in after:
        call = stmt.value if isinstance(stmt, ast.Expr | ast.Assign) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == function.name
            and (passed := arguments_by_parameter(function, call)) is not None
        ):
            names = {k: v.id for k, v in passed.items() if isinstance(v, ast.Name)}
            if names.get(receiver.id) == optimizer.id and any(
                names.get(m) == target.id for m in modules
            ):
                return True
        for node in ast.walk(stmt):
            if isinstance(node, ast.Global | ast.Nonlocal):
                return False
            if (
                isinstance(node, ast.Name)
                and not isinstance(node.ctx, ast.Load)
                and node.id in (target.id, optimizer.id)
            ):
                return False  # re-bound before any such call
    return False


def _extended_elsewhere(ctx: RuleContext, step: OptimizerCall) -> bool:
    """True when the optimizer's parameter groups are touched anywhere near the step (the
    new parameters may be added there)."""
    receiver = expr_text(ctx.source, step.target)
    scope: ast.AST = step.function if step.function is not None else ctx.tree
    return any(
        isinstance(node, ast.Attribute)
        and node.attr in _EXTENDS_OPTIMIZER
        and expr_text(ctx.source, node.value) == receiver
        for node in ast.walk(scope)
    )


def _move_construction(
    ctx: RuleContext, built: OptimizedParameters, new: Replacement
) -> Fix | None:
    """Move `optimizer = torch.optim.X(model.parameters(), ...)` after the replacement, when
    the optimizer is then built from the same arguments, only later."""
    stmt = built.stmt
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.value is built.call
        and stands_alone(ctx.source, stmt)
        and stands_alone(ctx.source, new.stmt)
    ):
        return None
    _, block = ctx.analysis.block_of(stmt)
    _, block_new = ctx.analysis.block_of(new.stmt)
    if block_new is not block:
        return None
    start = next(i for i, s in enumerate(block) if s is stmt)
    end = next(i for i, s in enumerate(block) if s is new.stmt)
    if end <= start:
        return None
    name = stmt.targets[0].id
    reads = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
    for between in block[start + 1 : end + 1]:
        for node in ast.walk(between):
            if isinstance(node, ast.Name) and node.id == name:
                return None  # the optimizer is used (or re-bound) before the replacement
            if between is new.stmt:
                continue
            if (
                isinstance(node, ast.Name)
                and not isinstance(node.ctx, ast.Load)
                and node.id in reads
            ):
                return None  # the construction would read another value
            if isinstance(node, ast.Global | ast.Nonlocal | ast.FunctionDef | ast.ClassDef):
                return None
    text = ctx.source.slice(ctx.node_range(stmt)) + trailing_comment(ctx.source, stmt)
    edits = (delete_statement(ctx.source, stmt), insert_after(ctx.source, new.stmt, text))
    return Fix("Build the optimizer after the replacement", Safety.SAFE, edits)
