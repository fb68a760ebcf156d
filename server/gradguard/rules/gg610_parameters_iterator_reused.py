"""GG610 `parameters-iterator-reused`

## What it does
Finds a generator of a model's parameters bound to a name and iterated a second time:
`params = model.parameters()` (also `named_parameters()`, `buffers()`, `children()`,
`modules()`), or a `filter(...)`, `map(...)`, `itertools.chain(...)` or generator expression
over them, first handed to an optimizer, a `for` loop, `list()`, `sum()` or
`clip_grad_norm_` (or to a function of the file whose every call iterates that argument
to its end, `describe(params)` summing the sizes), and then again to one of them. It also
finds a parameter of a function of the file that every call (in the file; the function is
never passed around) binds to such a generator, iterated twice in the body: D2L's
`grad_clipping(params, theta)` called as `grad_clipping(model.parameters(), 1)` sums the
norm in a first loop, and its rescaling loop never runs. It also finds one that
`__init__` keeps on `self` and iterates to its end (`self.params = filter(...)`, then
`self.optim = SGD(self.params)`), read again by another method of the class
(`clip_grad_norm_(self.params, 1.0)` in `train_step`): every other method runs after
`__init__` returned, on an exhausted generator. It also
finds one created before a training loop and iterated inside it (`clip_grad_norm_(params,
1.0)` every step): every iteration after the first gets it exhausted.

It fires only when the analysis is certain: the value is a generator (`M.parameters()` on a
module built in the file or a module class of the file, also when a helper called once is
handed that module as its parameter, or held in `self.model` when every construction of
the class of the file passes one to its `__init__`, or one of the wrappers above), both
reads iterate it to its end (a `for` loop without `break`, an optimizer, a clipping or
collecting call), the first one runs whenever the second does (not under an `if` or inside
a loop of its own, and for `self.<a>` a statement of `__init__`'s own body that no
`return` skips), and nothing re-binds the name in between (for `self.<a>`: no other store
of it may reach an instance of the class). A name given to code the
analysis does not know is not counted as iterated. A class whose own `parameters()`
returns a list, and a name bound to `list(model.parameters())`, are never flagged.

Modelled on real reports: pytorch/pytorch#148259 (a generator iterated by a loop, then
given to `clip_grad_norm_`, which clips nothing),
https://github.com/pytorch/pytorch/issues/148259; PixArt-alpha/PixArt-alpha#160 (a
`filter(...)` of trainable parameters given to the optimizer, then to
`accelerator.clip_grad_norm_` on every step: no step is clipped),
https://github.com/PixArt-alpha/PixArt-alpha/pull/160; ShusenTang/Dive-into-DL-PyTorch#101
(a norm loop, then a rescaling loop over the same `model.parameters()`: the rescaling never
runs), https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/101;
YanaiEliyahu/AdasOptimizer#2 (a `filter(...)` generator iterated twice: "optimizer got an
empty parameter list"), https://github.com/YanaiEliyahu/AdasOptimizer/issues/2.

## Why is this bad?
A generator runs once. The first loop, optimizer or `list()` that reads it to its end
leaves nothing for the next: torch 2.13.0's optimizers raise "optimizer got an empty
parameter list", `clip_grad_norm_` warns that it got an empty generator, clips nothing and
returns `tensor(0.)`, `parameters_to_vector` raises, a `for` loop (a freeze, an
initialisation, a rescaling) runs zero times. The silent cases are the dangerous ones:
training goes on with unclipped gradients or unfrozen layers and nothing says so.

## Example
```python
params = model.parameters()
optimizer = torch.optim.SGD(params, lr=0.1)
for x, y in loader:
    optimizer.zero_grad()
    criterion(model(x), y).backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)  # clips nothing
    optimizer.step()
```

## Use instead
```python
params = list(model.parameters())
optimizer = torch.optim.SGD(params, lr=0.1)
for x, y in loader:
    optimizer.zero_grad()
    criterion(model(x), y).backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    optimizer.step()
```

## Fix safety
"Bind a list" wraps the bound value in `list(...)` ("Pass a list": for a parameter, the
argument of every call): every read then iterates the same
parameters, which is what reading the name twice means. It is safe when the generator is
first iterated by the statement right after the binding: the list then holds exactly what
that first read would have seen. When statements run in between, they may add a layer to
the model or change which parameters require grad (what a lazy `filter` would see), so the
fix is offered as unsafe. No fix is offered where `list` is not the builtin.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis import torch_api as api
from gradguard.analysis.facts import Consumption, ReusedIterator, reused_iterators
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import SUMMARY_LIMIT, TorchError, compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text, replace_expr

# Errors too long for a summary: the part it quotes.
_SHORT_ERRORS = {
    "Expected !nested_tensorlist[0].empty() to be true, but got false": (
        "Expected !nested_tensorlist[0].empty() to be true"
    ),
}
# The longest source text a message repeats as it is.
_QUOTABLE = 60


class ParametersIteratorReused(Rule):
    """A generator of parameters iterated again after it was exhausted."""

    code = "GG610"
    name = "parameters-iterator-reused"
    severity = Severity.ERROR
    summary = "generator of parameters iterated a second time sees nothing"

    valid = (
        # A list can be iterated again.
        """
import torch
from torch import nn
model = nn.Linear(4, 2)
params = list(model.parameters())
optimizer = torch.optim.SGD(params, lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    optimizer.step()
""",
        # A new generator for each use.
        """
import torch
from torch import nn
model = nn.Linear(4, 2)
print(sum(p.numel() for p in model.parameters()))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
""",
        # Re-bound before each use.
        """
import torch
from torch import nn
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().backward()
    params = model.parameters()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    optimizer.step()
""",
        # A class of the file whose parameters() returns a list.
        """
import torch

class Neuron:
    def __init__(self):
        self.w = torch.zeros(3, requires_grad=True)
        self.b = torch.zeros(1, requires_grad=True)

    def parameters(self):
        return [self.w, self.b]

neuron = Neuron()
params = neuron.parameters()
for p in params:
    p.data.normal_()
optimizer = torch.optim.SGD(params, lr=0.1)
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 2)
params = model.parameters()
optimizer = torch.optim.SGD(params, lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().mul(100).backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    optimizer.step()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(4, 2)
params = list(model.parameters())
optimizer = torch.optim.SGD(params, lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().mul(100).backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    optimizer.step()
""",
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
params = model.parameters()
print("parameters:", sum(p.numel() for p in params))
optimizer = torch.optim.Adam(params, lr=1e-3)
""",
            fixed="""
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
params = list(model.parameters())
print("parameters:", sum(p.numel() for p in params))
optimizer = torch.optim.Adam(params, lr=1e-3)
""",
            error="optimizer got an empty parameter list",
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
trainable = filter(lambda p: p.requires_grad, model.parameters())
for step in range(3):
    optimizer.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().mul(100).backward()
    torch.nn.utils.clip_grad_norm_(trainable, 1.0)
    optimizer.step()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
trainable = list(filter(lambda p: p.requires_grad, model.parameters()))
for step in range(3):
    optimizer.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().mul(100).backward()
    torch.nn.utils.clip_grad_norm_(trainable, 1.0)
    optimizer.step()
""",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per generator read again once exhausted."""
        text = ctx.source.text
        if not any(f"{method}(" in text for method in api.MODULE_GENERATOR_METHODS):
            return
        for reuse in reused_iterators(ctx.analysis, lambda: ctx.name_flow):
            yield self._finding(ctx, reuse)

    def _finding(self, ctx: RuleContext, reuse: ReusedIterator) -> Finding:
        second = reuse.second
        name = second.label
        error = _error(second)
        effect = (
            f"{second.consumer} raises {error.quoted}"
            if error is not None
            else f"{second.consumer} {second.silent}"
        )
        source = expr_text(ctx.source, reuse.source)
        shown = f"`{source}`" if len(source) <= _QUOTABLE and "\n" not in source else "a generator"
        created = f"`{reuse.name}` is {shown} (line {reuse.binding.lineno})"
        related = [
            Related(ctx.node_range(reuse.binding), f"`{reuse.name}` is a one-shot generator")
        ]
        if isinstance(reuse.binding, ast.arg):
            every = "every call" if len(reuse.arguments) > 1 else "the call"
            created = f"`{reuse.name}` is {shown} at {every} (line {reuse.source.lineno})"
            related.extend(
                Related(ctx.node_range(a), "passes a one-shot generator") for a in reuse.arguments
            )
        if name != reuse.name:
            created = f"`{name}` is `{reuse.name}`, and {created}"
        if reuse.first is not None:
            first = reuse.first
            summary = f"`{name}` is already exhausted: {effect}"
            why = (
                f"{created}; {_consumer(first)} iterated it to the end, and a generator "
                "cannot start over"
            )
            if _kept_by_init(reuse):
                why = (
                    f"{created}; {_consumer(first)} in `__init__` iterated it to the end, "
                    "and every other method runs after `__init__`: a generator cannot start over"
                )
            related.append(Related(ctx.node_range(first.node), "iterates it to the end"))
        else:
            assert reuse.loop is not None
            summary = f"`{name}` is exhausted after one iteration: {effect}"
            if len(summary) > SUMMARY_LIMIT:
                summary = f"`{name}` is exhausted: {effect}"
            why = (
                f"{created}, created before the loop at line {reuse.loop.lineno}; the first "
                "iteration reads it to the end, every later one finds it empty"
            )
            related.append(Related(ctx.header_range(reuse.loop), "runs it again"))
        message = compose(
            summary,
            why,
            f"{'Pass' if reuse.arguments else 'Bind'} `list({_unwrapped(source)})` instead: "
            "a list can be iterated again",
            error.in_full if error is not None else "",
        )
        fix = _bind_list(ctx, reuse, source)
        return self.finding(message, ctx.node_range(second.name), related, [fix] if fix else [])


def _kept_by_init(reuse: ReusedIterator) -> bool:
    """The generator is kept on `self` by `__init__` (see `held_iterators`)."""
    binding = reuse.binding
    return isinstance(binding, ast.Assign) and isinstance(binding.targets[0], ast.Attribute)


def _error(use: Consumption) -> TorchError | None:
    if use.error is None:
        return None
    return TorchError(use.error, _SHORT_ERRORS.get(use.error, ""))


def _consumer(use: Consumption) -> str:
    """How a detail names the first read: "SGD() (line 5)", "the loop at line 7"."""
    if use.consumer.startswith("the loop"):
        return use.consumer
    return f"{use.consumer} (line {getattr(use.node, 'lineno', use.name.lineno)})"


def _unwrapped(source: str) -> str:
    """`p for p in ...` of a parenthesised generator expression, else the text itself."""
    if source.startswith("(") and source.endswith(")"):
        try:
            if isinstance(ast.parse(source, mode="eval").body, ast.GeneratorExp):
                return source[1:-1]
        except SyntaxError:
            return source
    return source


def _bind_list(ctx: RuleContext, reuse: ReusedIterator, source: str) -> Fix | None:
    """`name = list(<value>)`, when `list` is the builtin here."""
    flow = ctx.name_flow
    if flow.bound_in_module("list") or any(
        key[1] == "list" for key in flow.bindings if key[0] != id(ctx.tree)
    ):
        return None
    sources = reuse.arguments or (reuse.source,)
    edits = tuple(
        replace_expr(ctx.source, s, f"list({_unwrapped(expr_text(ctx.source, s))})")
        for s in sources
    )
    safety = Safety.SAFE if reuse.adjacent else Safety.UNSAFE
    title = "Pass a list" if reuse.arguments else "Bind a list"
    return Fix(title, safety, edits)
