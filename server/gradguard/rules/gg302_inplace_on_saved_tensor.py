"""GG302 `inplace-on-saved-tensor`

## What it does
Finds an in-place change of a tensor that autograd saved for the backward pass, followed by
a backward pass that needs it:

* the output of `sigmoid`, `tanh`, `exp`, `softmax`, `log_softmax`, `relu`, `sqrt`,
  `rsqrt`, `reciprocal`, `expm1`, `exp2`, `tan`, `torch.special.expit`, `softmin` (their
  backward formulas use their own result) changed by `+=`, `y[i] = ...`, `y.add_(...)`,
  `torch.relu_(y)`, `F.relu(y, inplace=True)` or a module built with `inplace=True`;
* the input of `nn.Linear`/`nn.Conv*`/`nn.ConvTranspose*`/`F.linear`, of a norm layer
  (`nn.LayerNorm`, `nn.BatchNorm*`, `nn.GroupNorm`: `x += attn(norm(x))`), of an op whose
  backward reads its input (`log`, `sin`, `abs`, `x ** 2`, `pow`, `gelu`, `silu`, `elu`,
  `softplus`, `leaky_relu` and their layers), or a factor of `*`, `/`, `@`, `matmul` (kept
  to compute the other factor's gradient), changed in place before the backward. A basic
  slice is the tensor itself here: `out[:, 1] = F.softplus(out[:, 1])` changes what
  softplus kept.

The change may sit inside `forward` (a residual `out += x` after a sigmoid gate, a
`masked_fill_` on attention weights) while the backward runs in the training loop that
calls the model: the model's output runs through the changed tensor on every call. It may
sit in a helper the forward or the loop calls (`attend(q, k, v, mask)`), counted when the
arguments that fed the saving op require grad at that call; and the changed tensor may be
reached through a certain view (`conv(x.transpose(1, 2))` keeps `x`'s storage, so a later
`x += ...` changes what the convolution saved). The kept tensor may also come back from a
call: a block's `forward` or a helper whose last operation keeps its own output (`return
F.relu(self.fc(x))`), or an `nn.Sequential` whose last layer keeps its own result
(`nn.Sequential(conv, bn, nn.ReLU(inplace=True))`, also each one of an `nn.ModuleList` a
comprehension calls, `[b(x) for b in self.branches]`), changed in place by the caller
(`h = self.block(x)`, then `h += x`). Or the change is made by a function or module of the
file the caller hands the kept tensor to, which writes into its parameter on every call
(`out = x; out[:, :, :h] = ...` in a submodule's `forward`, `return imgs.clamp_(-1, 1)` in
a helper): the finding is at the call, which should pass a copy.

A change inside a loop counts where it certainly runs: in a branch that a loop over a
known range takes on some pass (`if step % 2 == 0:` in `for step in range(4)`), before a
backward the loop reaches on every pass; or on the first pass of a loop that certainly runs,
where a name the loop rebinds still holds the kept tensor it held before the loop
(`h = torch.tanh(x)`, then `for layer in layers: h += layer(h); h = torch.tanh(h)`).

It may also sit between two layers of an `nn.Sequential` (written as its arguments, or in a
list literal only unpacked into it, `nn.Sequential(*layers)`): a layer built with `inplace=True`
(`nn.ReLU`, `nn.LeakyReLU`, `nn.ELU`, ... and `nn.Dropout` when no code of the file can
switch the model to evaluation mode) right after a layer that keeps its own output
(`nn.Sigmoid`, `nn.Tanh`, `nn.Softmax`, `nn.LogSoftmax`, `nn.ReLU`, and `nn.LeakyReLU`,
`nn.ELU`, `nn.CELU`, `nn.SELU`, `nn.RReLU` built with `inplace=True`).

## Why is this bad?
Autograd checks, during the backward pass, that every saved tensor is still the version it
saved, and fails when it is not:

    RuntimeError: one of the variables needed for gradient computation has been modified
    by an inplace operation: [torch.FloatTensor [8, 4]], which is output 0 of
    SigmoidBackward0, is at version 1; expected version 0 instead.

The error names an autograd node, not the line that changed the tensor, which makes it hard
to trace back; ResNet-style code writes `out += identity` before `relu`, never after, for
this reason.

## Example
```python
probs = torch.sigmoid(logits)
probs += 1e-6
loss = -probs.log().mean()
loss.backward()
```

## Use instead
```python
probs = torch.sigmoid(logits)
probs = probs + 1e-6
loss = -probs.log().mean()
loss.backward()
```

## Fix safety
For two layers of an `nn.Sequential`, the fix drops `inplace=True` from the second
layer's constructor, written inside the `nn.Sequential(...)` call or the list literal only
unpacked into it (so no other code uses that layer object): the values computed are the
same, only a copy is no longer saved. It is safe. "Use the out-of-place form" rewrites
`y += v` as `y = y + v`, `y.add_(v)` as `y = y.add(v)`, `torch.relu_(y)` as
`y = torch.relu(y)`, drops `inplace=True` from a functional call, and puts
`y = y.clone()` before `y[i] = v` (not when `v` itself reads `y`, as in
`y[:, 1] = F.softplus(y[:, 1])`: the copy would be kept and changed in turn). The fix is
unsafe: other names bound to the same tensor no longer see the change. A module built
with `inplace=True` gets no fix (its constructor may serve other calls).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import (
    BackwardCall,
    Grad,
    InPlaceOnSaved,
    SavedNode,
    module_nodes_of,
)
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity, TextEdit
from gradguard.core.messages import MODIFIED_INPLACE, compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import (
    expr_text,
    needs_parentheses,
    remove_argument,
    with_method,
)
from gradguard.rewrite.statements import insert_before, stands_alone

_ERROR = "modified by an inplace operation"
_OPERATORS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.MatMult: "@",
}
# In-place tensor methods whose name without the underscore is the out-of-place form.
_OUT_OF_PLACE = frozenset(
    "add sub mul div clamp clamp_min clamp_max relu sigmoid tanh exp log abs neg pow sqrt "
    "masked_fill".split()
)


class InplaceOnSavedTensor(Rule):
    """In-place change of a tensor the graph saved, before the backward that needs it."""

    code = "GG302"
    name = "inplace-on-saved-tensor"
    severity = Severity.ERROR
    summary = "in-place change of a tensor saved for backward, before backward()"

    valid = (
        # The change comes after the backward pass.
        """
import torch
w = torch.randn(3, requires_grad=True)
y = torch.sigmoid(w)
y.sum().backward()
y.add_(1)
""",
        # nn.Linear keeps its input, not its output: ReLU in place after it is fine.
        """
import torch
from torch import nn
layer = nn.Linear(4, 4)
h = layer(torch.randn(2, 4))
h.relu_()
h.sum().backward()
""",
        # `w * 3` keeps the constant, not its result; `w + x` keeps nothing.
        """
import torch
w = torch.randn(3, requires_grad=True)
x = torch.randn(3)
y = w * 3
y += 1
z = w + x
x.add_(1)
(y.sum() + z.sum()).backward()
""",
        # A copy is changed, not the saved tensor.
        """
import torch
w = torch.randn(3, requires_grad=True)
probs = torch.exp(w)
probs = probs.clone()
probs[0] = 0
probs.sum().backward()
""",
        # In-place layers after layers that keep their input, not their output; dropout in
        # place after a sigmoid in evaluation mode changes nothing.
        """
import torch
from torch import nn
net = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Dropout(0.3, inplace=True))
net(torch.randn(4, 8)).mean().backward()
gate = nn.Sequential(nn.Linear(8, 16), nn.Sigmoid(), nn.Dropout(0.3, inplace=True))
gate.eval()
gate(torch.randn(4, 8)).mean().backward()
""",
        # nn.RMSNorm keeps intermediate values, not an input that needs no grad; a norm
        # layer's output (not its input) changed in place.
        """
import torch
from torch import nn
proj = nn.Linear(4, 4)
x = torch.randn(3, 4)
x += proj(nn.RMSNorm(4)(x))
normed = nn.LayerNorm(4)(x)
normed += 1.0
(x.sum() + proj(normed).sum()).backward()
""",
        # Residual added before the activation (as ResNet does).
        """
import torch
from torch import nn
conv = nn.Linear(4, 4)
x = torch.randn(2, 4)
out = conv(x)
out += torch.randn(2, 4)
out = torch.relu(out)
out.sum().backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
disc = nn.Sequential(
    nn.Linear(8, 16),
    nn.LeakyReLU(0.2, inplace=True),
    nn.Dropout(0.3, inplace=True),
    nn.Linear(16, 1),
)
disc(torch.randn(4, 8)).mean().backward()
""",
            fixed="""
import torch
from torch import nn
disc = nn.Sequential(
    nn.Linear(8, 16),
    nn.LeakyReLU(0.2, inplace=True),
    nn.Dropout(0.3),
    nn.Linear(16, 1),
)
disc(torch.randn(4, 8)).mean().backward()
""",
            error=_ERROR,
        ),
        Invalid(
            """
import torch
logits = torch.randn(8, 4, requires_grad=True)
probs = torch.sigmoid(logits)
probs += 1e-6
loss = -probs.log().mean()
loss.backward()
""",
            fixed="""
import torch
logits = torch.randn(8, 4, requires_grad=True)
probs = torch.sigmoid(logits)
probs = probs + 1e-6
loss = -probs.log().mean()
loss.backward()
""",
            unsafe_fix=True,
            error=_ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
layer = nn.Linear(4, 2)
x = torch.randn(8, 4)
out = layer(x)
x.mul_(0.5)
out.sum().backward()
""",
            fixed="""
import torch
from torch import nn
layer = nn.Linear(4, 2)
x = torch.randn(8, 4)
out = layer(x)
x = x.mul(0.5)
out.sum().backward()
""",
            unsafe_fix=True,
            error=_ERROR,
        ),
        Invalid(
            """
import torch
w = torch.randn(4, 3, requires_grad=True)
scores = torch.exp(w)
scores[:, 0] = 0
scores.sum().backward()
""",
            fixed="""
import torch
w = torch.randn(4, 3, requires_grad=True)
scores = torch.exp(w)
scores = scores.clone()
scores[:, 0] = 0
scores.sum().backward()
""",
            unsafe_fix=True,
            error=_ERROR,
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F
w = torch.randn(3, requires_grad=True)
gate = torch.sigmoid(w)
F.relu(gate, inplace=True)
gate.sum().backward()
""",
            fixed="""
import torch
import torch.nn.functional as F
w = torch.randn(3, requires_grad=True)
gate = torch.sigmoid(w)
F.relu(gate)
gate.sum().backward()
""",
            unsafe_fix=True,
            error=_ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
norm = nn.LayerNorm(4)
proj = nn.Linear(4, 4)
x = torch.randn(3, 4)
x += proj(norm(x))
x.sum().backward()
""",
            fixed="""
import torch
from torch import nn
norm = nn.LayerNorm(4)
proj = nn.Linear(4, 4)
x = torch.randn(3, 4)
x = x + proj(norm(x))
x.sum().backward()
""",
            unsafe_fix=True,
            error=_ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per in-place change that a later backward pass trips over."""
        reported: set[int] = set()
        changes = ctx.analysis.inplace_on_saved
        for event in ctx.analysis.backward_calls:
            if not event.through_modified or event.via == "torch.autograd.grad":
                continue
            changed_here = {id(c.node) for c in changes if c.saved_by & event.through_modified}
            for change in changes:
                if id(change.node) in reported or not change.saved_by & event.through_modified:
                    continue
                if id(change.target) in changed_here:
                    continue  # `std.mul_(eps).add_(mu)`: one tensor, reported at `std.mul_`
                if change.value.grad is Grad.TRACKED and change.value.leaf:
                    continue  # in place on a leaf that requires grad: GG301's finding
                if change.inside is not None and any(c.node is change.inside for c in changes):
                    continue  # the callee's own change is reported where it is made
                reported.add(id(change.node))
                yield self._finding(ctx, change, event)

    def _call_finding(
        self, ctx: RuleContext, change: InPlaceOnSaved, event: BackwardCall, saver: SavedNode
    ) -> Finding:
        """A call of a function of the file that writes into the saved tensor it is given."""
        inside = change.inside
        assert inside is not None
        name = expr_text(ctx.source, change.target)
        call = expr_text(ctx.source, change.node) if isinstance(change.node, ast.expr) else name
        line = getattr(inside, "lineno", "?")
        message = compose(
            f"`{_short(call)}` changes saved `{name}` in place: backward() raises "
            f"{MODIFIED_INPLACE.quoted}",
            f"The function it calls writes into its argument (line {line}), after autograd "
            f"saved `{name}` for the backward pass, so "
            f"`{with_method(ctx.source, event.target, 'backward()')}` fails",
            f"Pass a copy (`{name}.clone()`) or make the function work out of place",
            MODIFIED_INPLACE.in_full,
        )
        related = [
            Related(ctx.node_range(saver.node), f"`{name}` saved for backward here"),
            Related(ctx.node_range(inside), "the in-place write"),
            Related(ctx.node_range(event.call), "the backward pass that needs it"),
        ]
        return self.finding(message, ctx.node_range(change.node), related, [])

    def _finding(self, ctx: RuleContext, change: InPlaceOnSaved, event: BackwardCall) -> Finding:
        if isinstance(change.node, ast.Call) and isinstance(change.target, ast.Call):
            layers = _layers_finding(self, ctx, change, event)
            if layers is not None:
                return layers
        name = expr_text(ctx.source, change.target)
        saver = min(
            change.saved_by & event.through_modified, key=lambda n: getattr(n.node, "lineno", 0)
        )
        if change.inside is not None and isinstance(change.node, ast.Call):
            return self._call_finding(ctx, change, event, saver)
        message = compose(
            f"Saved `{name}` changed in place: backward() raises {MODIFIED_INPLACE.quoted}",
            f"Autograd saved `{name}` for the backward pass before this in-place change, so "
            f"`{with_method(ctx.source, event.target, 'backward()')}` fails",
            "Use the out-of-place form",
            MODIFIED_INPLACE.in_full,
        )
        related = [
            Related(ctx.node_range(saver.node), f"`{name}` saved for backward here"),
            Related(ctx.node_range(event.call), "the backward pass that needs it"),
        ]
        fix = _out_of_place(ctx, change)
        return self.finding(message, ctx.node_range(change.node), related, [fix] if fix else [])


def _layers_finding(
    rule: Rule, ctx: RuleContext, change: InPlaceOnSaved, event: BackwardCall
) -> Finding | None:
    """An in-place layer of an `nn.Sequential` changing the output the layer before it
    keeps (the change is the second layer's constructor, the target the first's)."""
    changer, saver = change.node, change.target
    if not (isinstance(changer, ast.expr) and isinstance(saver, ast.expr)):
        return None
    if not _is_layer_of_sequential(ctx.tree, changer, saver):
        return None
    first, second = expr_text(ctx.source, saver), expr_text(ctx.source, changer)
    short = expr_text(ctx.source, changer.func) if isinstance(changer, ast.Call) else second
    message = compose(
        f"In-place `{short}` overwrites saved output: backward() raises {MODIFIED_INPLACE.quoted}",
        f"`{first}` keeps its output for the backward pass and the next layer, `{second}`, "
        f"overwrites it, so `{with_method(ctx.source, event.target, 'backward()')}` fails",
        "Build the layer without `inplace=True`",
        MODIFIED_INPLACE.in_full,
    )
    related = [
        Related(ctx.node_range(saver), f"`{first}` keeps its output for backward"),
        Related(ctx.node_range(event.call), "the backward pass that needs it"),
    ]
    fixes = []
    inplace = next((k for k in getattr(changer, "keywords", ()) if k.arg == "inplace"), None)
    if isinstance(changer, ast.Call) and inplace is not None:
        edit = remove_argument(ctx.source, changer, inplace)
        if edit is not None:
            fixes.append(Fix("Build the layer without `inplace=True`", Safety.SAFE, (edit,)))
    return rule.finding(message, ctx.node_range(changer), related, fixes)


def _is_layer_of_sequential(tree: ast.Module, changer: ast.expr, saver: ast.expr) -> bool:
    """`changer` and `saver` are two arguments of one call (the `nn.Sequential(...)`), or
    two elements of one list literal (`layers = [...]` unpacked into it)."""
    for node in module_nodes_of(tree, ast.Call, ast.List, ast.Tuple):
        items = node.args if isinstance(node, ast.Call) else None
        if isinstance(node, ast.List | ast.Tuple):
            items = node.elts
        if items is not None and any(a is changer for a in items):
            return any(a is saver for a in items)
    return False


def _out_of_place(ctx: RuleContext, change: InPlaceOnSaved) -> Fix | None:
    """The out-of-place rewrite of the change, when there is a plain one."""
    stmt, node, target = change.stmt, change.node, change.target
    if not isinstance(target, ast.Name | ast.Attribute) or not stands_alone(ctx.source, stmt):
        return None
    name = expr_text(ctx.source, target)
    edit: TextEdit | None = None
    written = node.target if isinstance(node, ast.AugAssign) else None
    if isinstance(node, ast.Assign) or isinstance(written, ast.Subscript):
        # `y[i] = v` / `y[i] += v`: change a copy instead; not when the statement itself
        # saved `y` (`b[:, 1] = F.softplus(b[:, 0])` would keep the copy, and change it).
        if _saved_within(change, stmt):
            return None
        edit = insert_before(ctx.source, stmt, f"{name} = {name}.clone()")
    elif isinstance(node, ast.AugAssign) and type(node.op) in _OPERATORS:
        value = expr_text(ctx.source, node.value)
        if needs_parentheses(node.value) and not isinstance(node.value, ast.UnaryOp):
            value = f"({value})"
        operator = _OPERATORS[type(node.op)]
        edit = TextEdit(ctx.node_range(node), f"{name} = {name} {operator} {value}")
    elif isinstance(node, ast.Call) and isinstance(stmt, ast.Expr) and stmt.value is node:
        edit = _call_out_of_place(ctx, node, name)
    if edit is None:
        return None
    return Fix("Use the out-of-place form", Safety.UNSAFE, (edit,))


def _saved_within(change: InPlaceOnSaved, stmt: ast.stmt) -> bool:
    """Some graph node that kept the changed tensor is an expression of `stmt`."""
    inside = {id(node) for node in ast.walk(stmt)}
    return any(id(saver.node) in inside for saver in change.saved_by)


def _call_out_of_place(ctx: RuleContext, call: ast.Call, name: str) -> TextEdit | None:
    """`y.add_(v)` -> `y = y.add(v)`, `torch.relu_(y)` -> `y = torch.relu(y)`,
    `F.relu(y, inplace=True)` -> `F.relu(y)`."""
    func = call.func
    inplace = next((kw for kw in call.keywords if kw.arg == "inplace"), None)
    if inplace is not None:
        return remove_argument(ctx.source, call, inplace)
    if not isinstance(func, ast.Attribute) or not func.attr.endswith("_"):
        return None
    if func.attr[:-1] not in _OUT_OF_PLACE:
        return None
    # The call's text with the trailing underscore of the method or function name dropped.
    function = expr_text(ctx.source, func)
    arguments = expr_text(ctx.source, call)[len(function) :]
    return TextEdit(ctx.node_range(call), f"{name} = {function[:-1]}{arguments}")


def _short(text: str) -> str:
    """A call as a message quotes it: on one line, at most 60 characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= 60 else flat[:57] + "..."
