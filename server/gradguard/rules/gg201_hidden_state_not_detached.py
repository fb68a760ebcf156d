"""GG201 `hidden-state-not-detached`

## What it does
Finds a recurrent state that is carried from one iteration of a training loop into the next
without `.detach()`, in a loop that calls `backward()` every iteration: `out, h = rnn(x, h)`,
`h = h_next`, `(h, c)` tuples of an LSTM, `self.hidden` kept on a module or trainer,
`nn.LSTMCell` / `nn.GRUCell` loops, hand-written cells such as
`h = torch.tanh(x @ W + h @ U)`, and a trainer's step method called on every iteration of
a loop that backpropagates through state it left on `self` in its previous call. The state
may cross the loop through a loop over time steps: nested in it (`for x_t in chunk:
h = cell(x_t, h)`), in a helper that returns it, or in `forward` (returned, or kept on
`self` as in fastbook's language model). A state detached in place (`h.detach_()`, also
element by element) or guarded by `if h is not None:` is cut.

## Why is this bad?
The state produced in iteration *i* still points into iteration *i*'s graph. `backward()`
frees that graph, so the next iteration's `backward()` walks into freed buffers and raises

    RuntimeError: Trying to backward through the graph a second time (or directly access
    saved tensors after they have already been freed)

Passing `retain_graph=True` only hides the bug: the graph then grows every iteration
(memory and time grow without bound) and, once `optimizer.step()` has updated the weights
in place, backward fails with `one of the variables needed for gradient computation has been
modified by an inplace operation`. A loop that retains the graph and changes nothing in
place (no `step()`, no in-place op, in its body or the file's functions it calls) runs: it
backpropagates through every earlier iteration on purpose, and is not reported.

A call to any helper or unknown function on the state (`h = repackage_hidden(h)`) counts as
a possible detach, so it is never reported. Nor is a hand-written step after the backward
(`w = w - lr * w.grad`): a subtraction saves nothing a later backward could find freed, and
the bug there is the next `w.grad` being None (GG403).

## Example
```python
hidden = torch.zeros(1, 8, 16)
for x, y in batches:
    out, hidden = rnn(x, hidden)
    loss = criterion(out, y)
    loss.backward()
```

## Use instead
```python
hidden = torch.zeros(1, 8, 16)
for x, y in batches:
    out, hidden = rnn(x, hidden.detach())
    loss = criterion(out, y)
    loss.backward()
```

## Fix safety
"Detach the hidden state" adds `.detach()` where the state crosses into the next iteration:
on the carry assignment (`h = h_next.detach()`) when the state is not used again in the same
iteration, otherwise where the next iteration first reads it (each element of a tuple state;
guarded with `is not None` when the state starts as `None`). No fix is offered when the
state gets its history in a time-step loop where that detach would cut every step. This
is truncated backpropagation through time, the standard fix, and the fix is safe. When
`retain_graph=True` only served the carried state, the fix also removes it; that changes
which gradients are computed, so that fix is unsafe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from gradguard.analysis.facts import (
    REBOUND_PREFIX,
    BackwardCall,
    Carry,
    Kind,
    LoopNode,
    dotted,
    may_update_in_place,
    reads_key,
)
from gradguard.core.findings import (
    Finding,
    Fix,
    Related,
    Safety,
    Severity,
    TextEdit,
)
from gradguard.core.messages import (
    MODIFIED_INPLACE,
    SECOND_BACKWARD,
    capitalized,
    compose,
    describe_backward,
)
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import (
    expr_text,
    iterable_text,
    remove_argument,
    replace_expr,
    with_method,
)

ERROR = "Trying to backward through the graph a second time"
INPLACE_ERROR = (
    "one of the variables needed for gradient computation has been modified by an inplace operation"
)


@dataclass
class _Group:
    stmt: ast.stmt
    loop: LoopNode
    carries: list[Carry] = field(default_factory=list)
    events: list[BackwardCall] = field(default_factory=list)
    # The state gets its history in a time-step loop nested in the carrying loop (here or
    # in a helper): detaching where it is defined would cut every step, so no fix.
    inner: bool = False


class HiddenStateNotDetached(Rule):
    """A recurrent state carried across backward() calls without detach()."""

    code = "GG201"
    name = "hidden-state-not-detached"
    severity = Severity.ERROR
    summary = "hidden state carried into the next iteration without .detach()"

    valid = (
        # The graph retained on purpose and nothing changed in place: the receptive field
        # of a growing stack of layers, every backward through all of them.
        """
import torch
from torch import nn
conv = nn.Conv1d(1, 1, 3, padding=1)
x = torch.zeros(1, 1, 9, requires_grad=True)
out = x
for _ in range(3):
    out = conv(out)
    out[0, 0, 4].backward(retain_graph=True)
    print(int((x.grad != 0).sum()))
    x.grad.zero_()
""",
        # Detached through a helper.
        """
import torch
from torch import nn
def repackage_hidden(h):
    return h.detach()
rnn = nn.GRU(4, 8)
h = torch.zeros(1, 2, 8)
for _ in range(3):
    h = repackage_hidden(h)
    out, h = rnn(torch.randn(5, 2, 4), h)
    out.sum().backward()
""",
        # Re-created for every batch; the inner time-step loop backpropagates once at the end.
        """
import torch
from torch import nn
cell = nn.RNNCell(4, 8)
for batch in range(3):
    h = torch.zeros(2, 8)
    loss = 0
    for t in range(5):
        h = cell(torch.randn(2, 4), h)
        loss = loss + h.pow(2).mean()
    loss.backward()
""",
        # Carried under no_grad (sampling): no graph is built.
        """
import torch
from torch import nn
rnn = nn.LSTM(4, 8)
state = None
with torch.no_grad():
    for _ in range(10):
        out, state = rnn(torch.randn(1, 1, 4), state)
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
rnn = nn.RNNCell(4, 8)
head = nn.Linear(8, 1)
h = torch.zeros(1, 8)
for step in range(5):
    h_next = rnn(torch.randn(1, 4), h)
    loss = head(h_next).pow(2).mean()
    loss.backward()
    h = h_next
""",
            fixed="""
import torch
from torch import nn
rnn = nn.RNNCell(4, 8)
head = nn.Linear(8, 1)
h = torch.zeros(1, 8)
for step in range(5):
    h_next = rnn(torch.randn(1, 4), h)
    loss = head(h_next).pow(2).mean()
    loss.backward()
    h = h_next.detach()
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
lstm = nn.LSTM(4, 8)
opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
h, c = torch.zeros(1, 2, 8), torch.zeros(1, 2, 8)
for _ in range(3):
    out, (h, c) = lstm(torch.randn(5, 2, 4), (h, c))
    opt.zero_grad()
    out.mean().backward(retain_graph=True)
    opt.step()
""",
            fixed="""
import torch
from torch import nn
lstm = nn.LSTM(4, 8)
opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
h, c = torch.zeros(1, 2, 8), torch.zeros(1, 2, 8)
for _ in range(3):
    out, (h, c) = lstm(torch.randn(5, 2, 4), (h.detach(), c.detach()))
    opt.zero_grad()
    out.mean().backward()
    opt.step()
""",
            unsafe_fix=True,
            error=INPLACE_ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
gru = nn.GRU(4, 8)
hidden = None
for _ in range(3):
    out, hidden = gru(torch.randn(5, 2, 4), hidden)
    loss = out.mean() + hidden.mean()
    loss.backward()
""",
            fixed="""
import torch
from torch import nn
gru = nn.GRU(4, 8)
hidden = None
for _ in range(3):
    out, hidden = gru(torch.randn(5, 2, 4), (hidden.detach() if hidden is not None else None))
    loss = out.mean() + hidden.mean()
    loss.backward()
""",
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per carry statement whose state reaches a backward() every iteration."""
        groups: dict[int, _Group] = {}
        for event in [*ctx.analysis.backward_calls, *ctx.analysis.backward_in_calls]:
            # In source order: a set of carries iterates in the order of their addresses, and
            # the first carry of a statement picks the loop its finding names.
            for carry in sorted(event.value.all_carries(), key=_carry_position):
                if carry.loop not in event.every_iteration:
                    continue
                stmt, inner = carry.stmt, None
                if not carry.value.holds_history():
                    inner = _rebound_with_history(carry, event)
                    if inner is None:
                        continue
                    stmt = stmt or inner.stmt
                if stmt is None or _steps_after_backward(carry, event):
                    continue
                group = groups.setdefault(id(stmt), _Group(stmt, carry.loop))
                group.inner = group.inner or (inner is not None and _cut_inside(inner, carry))
                if carry not in group.carries:
                    group.carries.append(carry)
                if event not in group.events:
                    group.events.append(event)
        for group in groups.values():
            if any(_retains_graph(e) for e in group.events) and not may_update_in_place(
                group.loop, ctx.grad_context.functions
            ):
                # Retained on purpose, and nothing changes a saved tensor in place: every
                # backward runs (a receptive-field plot through a growing stack of layers).
                continue
            yield self._finding(ctx, group)

    def _finding(self, ctx: RuleContext, group: _Group) -> Finding:
        keys = list(dict.fromkeys(carry.key for carry in _in_source_order(group)))
        names = ", ".join(f"`{k}`" for k in keys)
        event = group.events[0]
        loop_line = group.loop.lineno
        retained = [e for e in group.events if _retains_graph(e)]
        call = describe_backward(expr_text(ctx.source, event.target), event.via)
        single = len(keys) == 1
        subject = f"hidden state {names} carries" if single else f"hidden states {names} carry"
        carried = (
            f"{capitalized(subject)} this iteration's graph into the next iteration of the loop "
            f"at line {loop_line} without .detach()"
        )
        undetached = f"{names} {'is' if single else 'are'} not detached"
        message = compose(
            f"{undetached}: backward() raises {SECOND_BACKWARD.quoted}",
            f"{carried}, so {call} (line {event.call.lineno}) reaches into the previous "
            "iteration's freed graph; detach the state at the start of each iteration",
        )
        if retained:
            message = compose(
                f"{undetached}: memory grows and backward raises {MODIFIED_INPLACE.quoted}",
                f"{carried}; retain_graph=True (line {retained[0].call.lineno}) only hides the "
                "bug: the graph grows every iteration (unbounded memory) and, once the weights "
                "are updated in place, backward fails",
                MODIFIED_INPLACE.in_full,
            )
        related = [
            Related(
                ctx.node_range(event.call), f"{call} backpropagates into the previous iteration"
            ),
            Related(ctx.header_range(group.loop), "the loop that carries the state"),
        ]
        fix = _fix(ctx, group, retained)
        return self.finding(message, ctx.node_range(group.stmt), related, [fix] if fix else [])


def _rebound_with_history(carry: Carry, event: BackwardCall) -> Carry | None:
    """The carry of a time-step loop that rebinds `carry`'s state to a tensor with history,
    when the state crosses the carrying loop through that inner loop: `h = cell(x_t, h)` in
    a `for x_t in chunk:` nested in the batch loop, or in a helper the batch loop calls
    (its result carries a `REBOUND_PREFIX` carry). The inner loop may run zero times, so
    the state is either unchanged or a tensor with history built on it; once it has history
    it keeps it into every later iteration until it is detached, so a backward through it
    on the next iteration fails the same."""
    seen = [*carry.value.all_carries(), *event.value.all_carries()]
    for inner in carry.value.all_carries():
        if inner.loop is None or inner.loop is carry.loop or inner.stmt is None:
            continue
        if not inner.value.holds_history():
            continue
        if inner.key.startswith(REBOUND_PREFIX):
            return inner
        if inner.key == carry.key and _inside_loop(inner.loop, carry.loop):
            # Built on the state itself (not `cell(x_t, h.detach())`), on some pass.
            same = [c for c in seen if c.key == inner.key and c.loop is inner.loop]
            if any(d.key == inner.key for c in same for d in c.value.carries):
                return inner
    return None


def _cut_inside(inner: Carry, carry: Carry) -> bool:
    """Whether the state gets its history in a loop whose every step a detach where it is
    defined or read would cut: a nested time-step loop, or one in a method keeping the
    state on `self`."""
    return inner.key == carry.key or inner.key.startswith(f"{REBOUND_PREFIX}self.")


def _inside_loop(inner: LoopNode, outer: LoopNode | None) -> bool:
    """Whether loop `inner` lies in the body of loop `outer`."""
    return outer is not None and any(node is inner for node in ast.walk(outer) if node is not outer)


def _steps_after_backward(carry: Carry, event: BackwardCall) -> bool:
    """`w = w - lr * w.grad` after `loss.backward()` in the loop's own body, where no op of
    the new value is known to save a tensor: a hand-written update that rebinds a leaf.
    A subtraction or addition saves nothing for backward, so the carried graph has nothing
    a later backward could find freed; the bug there is `w.grad` being None on the next
    iteration (`w` is no longer a leaf, GG403), not a second backward."""
    stmt, value = carry.stmt, carry.value
    if value.graph or not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return False
    update = stmt.value
    if not (isinstance(update, ast.BinOp) and isinstance(update.op, ast.Add | ast.Sub)):
        return False
    if dotted(stmt.targets[0]) != carry.key or dotted(update.left) != carry.key:
        return False
    body = carry.loop.body if carry.loop is not None else []
    after = [i for i, s in enumerate(body) if s is stmt]
    before = [i for i, s in enumerate(body) if s is event.stmt]
    return bool(after and before and before[0] < after[0])


def _in_source_order(group: _Group) -> list[Carry]:
    """Carries ordered by where their name is first assigned in the carry statement."""
    order: list[str] = []
    for node in ast.walk(group.stmt):
        key = dotted(node) if isinstance(node, ast.expr) else None
        if key is not None and isinstance(getattr(node, "ctx", None), ast.Store):
            order.append(key)
    return sorted(group.carries, key=lambda c: order.index(c.key) if c.key in order else len(order))


def _retains_graph(event: BackwardCall) -> bool:
    keyword = event.retain_graph
    return (
        keyword is not None
        and isinstance(keyword.value, ast.Constant)
        and keyword.value.value is True
    )


def _detached(ctx: RuleContext, expr: ast.expr, carry: Carry) -> str:
    """Source text that detaches `expr`, which holds `carry`'s state."""
    text = expr_text(ctx.source, expr)
    if carry.value.elements is not None:
        detached = f"tuple(t.detach() for t in {iterable_text(ctx.source, expr)})"
    else:
        detached = with_method(ctx.source, expr, "detach()")
    initial = carry.initial
    if initial is not None and initial.kind in (Kind.TENSOR, Kind.SEQUENCE):
        return detached
    return f"({detached} if {text} is not None else None)"


def _fix(ctx: RuleContext, group: _Group, retained: list[BackwardCall]) -> Fix | None:
    keys = {carry.key for carry in group.carries}
    if any(dotted(event.target) in keys for event in group.events):
        # `h.backward()` on the carried state itself: detaching it elsewhere cannot help,
        # and detaching it there would leave nothing to backpropagate.
        return None
    if group.inner:
        return None
    edits = _detach_edits(ctx, group)
    if not edits:
        return None
    safety = Safety.SAFE
    if retained:
        backward_calls = [e for e in ctx.analysis.backward_calls if group.loop in e.loops]
        if len({id(e.call) for e in backward_calls}) == 1:
            removal = _remove_keyword(ctx, retained[0])
            if removal is not None:
                edits.append(removal)
                safety = Safety.UNSAFE
    return Fix("Detach the hidden state", safety, tuple(edits))


def _detach_edits(ctx: RuleContext, group: _Group) -> list[TextEdit]:
    stmt = group.stmt
    parallel = _parallel_assignment_edits(ctx, group)
    if parallel:
        return parallel
    # Detach where the state is defined, when nothing later in the iteration reads it.
    if (
        len(group.carries) == 1
        and isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and dotted(stmt.targets[0]) == group.carries[0].key
        and not _read_later(ctx, stmt, group.loop, group.carries[0].key)
    ):
        carry = group.carries[0]
        value = stmt.value
        if isinstance(value, ast.Tuple) and carry.value.elements is not None:
            return [
                replace_expr(ctx.source, element, with_method(ctx.source, element, "detach()"))
                for element in value.elts
            ]
        if carry.value.kind is Kind.MAPPING:
            return _dict_value_edits(ctx, value, carry)
        return [replace_expr(ctx.source, value, _detached_definition(ctx, value, carry))]
    # Otherwise detach where the next iteration first reads it (not a dict: which of its
    # values to detach is decided where it is built).
    if any(carry.value.kind is Kind.MAPPING for carry in group.carries):
        return []
    edits: list[TextEdit] = []
    seen: set[int] = set()
    for carry in group.carries:
        for read in ctx.analysis.carry_reads.get(carry, []):
            if id(read) in seen:
                continue
            seen.add(id(read))
            if _cuts_nothing(ctx, read):
                continue  # `if self.hidden is None:`: nothing flows from there
            if _feeds_backward(ctx, read):
                # `loss.sum().backward()` reading last iteration's `loss`: a detach there
                # would leave that backward nothing to backpropagate through.
                return []
            if _in_inner_loop(ctx, read, group.loop):
                # A read in a time-step loop (`self.h` read by `forward`'s own loop over
                # the sequence): detaching there would cut every step, not the batches.
                return []
            edits.append(replace_expr(ctx.source, read, _detached(ctx, read, carry)))
    # The carries come from sets: put the edits in document order, the same on every run.
    return sorted(edits, key=lambda edit: (edit.range.start, edit.range.end))


def _cuts_nothing(ctx: RuleContext, read: ast.expr) -> bool:
    """`read` is the operand of an identity test (`h is None`, `h is not None`) or the
    owner of metadata (`h.shape`, `h.size(0)`): nothing of its graph flows from there, so a
    detach there would cut nothing."""
    parent = next(iter(ctx.grad_context.ancestors(read)), None)
    if isinstance(parent, ast.Attribute) and parent.attr in _METADATA:
        return True
    return isinstance(parent, ast.Compare) and all(
        isinstance(op, ast.Is | ast.IsNot) for op in parent.ops
    )


_METADATA = frozenset({"shape", "dtype", "device", "size", "dim", "ndim", "numel"})


def _feeds_backward(ctx: RuleContext, read: ast.expr) -> bool:
    """`read` lies in the value a backward call starts from (`h.sum().backward()`)."""
    targets = {id(event.target) for event in ctx.analysis.backward_calls}
    return id(read) in targets or any(
        id(node) in targets for node in ctx.grad_context.ancestors(read)
    )


def _in_inner_loop(ctx: RuleContext, read: ast.expr, carrying: LoopNode) -> bool:
    """Whether `read` lies in a loop other than the carrying one and the loops around it
    (found through `read`'s ancestors: every loop that contains it is one of them)."""
    context = ctx.grad_context
    around = {id(node) for node in context.ancestors(carrying)}
    for node in context.ancestors(read):
        if node is carrying:
            return False  # everything further out is around the carrying loop
        if isinstance(node, ast.For | ast.AsyncFor | ast.While) and id(node) not in around:
            return True
    return False


def _parallel_assignment_edits(ctx: RuleContext, group: _Group) -> list[TextEdit]:
    """`h, c = h_next, c_next` becomes `h, c = h_next.detach(), c_next.detach()` when neither
    name is read again in the iteration."""
    stmt = group.stmt
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Tuple | ast.List)
        and isinstance(stmt.value, ast.Tuple | ast.List)
        and len(stmt.targets[0].elts) == len(stmt.value.elts)
    ):
        return []
    by_key = {carry.key: carry for carry in group.carries}
    edits: list[TextEdit] = []
    for target, value in zip(stmt.targets[0].elts, stmt.value.elts, strict=True):
        key = dotted(target)
        carry = by_key.pop(key, None) if key is not None else None
        if carry is None:
            continue
        if _read_later(ctx, stmt, group.loop, carry.key):
            return []
        edits.append(replace_expr(ctx.source, value, _detached_definition(ctx, value, carry)))
    return [] if by_key else edits


def _dict_value_edits(ctx: RuleContext, value: ast.expr, carry: Carry) -> list[TextEdit]:
    """`state = {"h": h_n, "seen": n}` becomes `{"h": h_n.detach(), "seen": n}`: each value
    of a dict literal that holds history is detached (none for a dict built otherwise)."""
    elements = carry.value.elements
    if (
        not isinstance(value, ast.Dict)
        or elements is None
        or len(elements) != len(value.values)
        or any(key is None for key in value.keys)
    ):
        return []
    return [
        replace_expr(ctx.source, item, with_method(ctx.source, item, "detach()"))
        for item, element in zip(value.values, elements, strict=True)
        if element.holds_history()
    ]


def _detached_definition(ctx: RuleContext, expr: ast.expr, carry: Carry) -> str:
    if carry.value.elements is not None:
        return f"tuple(t.detach() for t in {iterable_text(ctx.source, expr)})"
    return with_method(ctx.source, expr, "detach()")


def _read_later(ctx: RuleContext, stmt: ast.stmt, loop: LoopNode, key: str) -> bool:
    """True when `key` is read after `stmt` before the iteration ends. For `stmt` in a method
    the loop calls (`self.hidden = new_hidden` in `train_step`): read after it in that
    method (what the loop does after the call returns reads the attribute through another
    name)."""
    current: ast.AST = stmt
    while current is not loop:
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef) or not isinstance(
            current, ast.stmt
        ):
            return False
        if any(reads_key(s, key) for s in ctx.analysis.statements_after(current)):
            return True
        owner, _ = ctx.analysis.block_of(current)
        if isinstance(owner, ast.ExceptHandler | ast.match_case):
            return True
        current = owner
    return False


def _remove_keyword(ctx: RuleContext, event: BackwardCall) -> TextEdit | None:
    keyword = event.retain_graph
    if keyword is None:
        return None
    return remove_argument(ctx.source, event.call, keyword)


def _carry_position(carry: Carry) -> tuple[int, int, str, int, int]:
    """Where a carry's loop and statement are (outer loops first), and its name."""
    loop, stmt = carry.loop, carry.stmt
    return (
        loop.lineno if loop is not None else 0,
        loop.col_offset if loop is not None else 0,
        carry.key,
        stmt.lineno if stmt is not None else 0,
        stmt.col_offset if stmt is not None else 0,
    )
