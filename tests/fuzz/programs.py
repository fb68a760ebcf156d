"""Hypothesis strategies for torch-flavoured Python programs built from grammar fragments.

The programs are syntactically valid (every one is checked with `ast.parse` by the tests) and
dense in the patterns the rules look at: training loops, `with torch.no_grad()`, `.backward()`,
`.item()`, RNN state carried through `out, h = rnn(x, h)`, `self.hidden`, comprehensions,
decorators, async defs, the walrus, `match`, `try`, nested functions and classes. Layout is
varied too (indent unit, line endings, a BOM, trailing comments, blank lines, non-ASCII
identifiers) because fixes must keep it.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from dataclasses import dataclass

from hypothesis import strategies as st

# Non-ASCII names and strings put multi-byte characters before diagnostics, so any mix-up
# between UTF-8 byte columns (ast) and code points (findings) shows up as a bad range.
NAMES = ("x", "y", "h", "c", "out", "loss", "hidden", "state", "h_next", "total", "隐藏", "损失")
STATE_NAMES = ("h", "hidden", "state", "h_next", "c", "隐藏", "self.hidden", "self.state")
MODULES = ("model", "rnn", "lstm", "gru", "cell", "self.rnn", "net.encoder")
ITERABLES = ("batches", "loader", "range(3)", "enumerate(loader)", "zip(xs, ys)", "data")
TARGETS = ("x", "batch", "(x, y)", "x, y", "i", "step", "t, (x, y)")
STRINGS = ('"loss"', "'🔥 step'", '"损失 {}"', "f'{loss.item():.3f}'", 'b"raw"', '"""doc"""')

GRAD_CONTEXTS = (
    "torch.no_grad()",
    "torch.inference_mode()",
    "torch.set_grad_enabled(False)",
    "torch.set_grad_enabled(training)",
    "torch.enable_grad()",
    "torch.no_grad(), open('log.txt') as fh",
    "T.no_grad()",
    "no_grad()",
    "open('log.txt') as fh",
    "autocast()",
)
DECORATORS = (
    "@torch.no_grad()",
    "@torch.inference_mode()",
    "@torch.enable_grad()",
    "@staticmethod",
    "@functools.lru_cache(maxsize=None)",
    "@property",
    "@torch.jit.script",
)
HEADERS = (
    ("import torch", "from torch import nn"),
    ("import torch", "import torch.nn as nn", "from torch.nn import functional as F"),
    ("import torch as T", "import torch", "from torch import no_grad, nn"),
    (
        "from __future__ import annotations",
        "import functools",
        "import torch",
        "from torch import nn",
    ),
)
SETUP = (
    "model = nn.Linear(4, 1)",
    "rnn = nn.GRU(4, 8)",
    "lstm = nn.LSTM(4, 8)",
    "cell = nn.RNNCell(4, 8)",
    "criterion = nn.MSELoss()",
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)",
    "h = torch.zeros(1, 2, 8)",
    "hidden = None",
    "state = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))",
    "W = torch.randn(4, 8, requires_grad=True)",
    "total = 0.0",
)


@dataclass(frozen=True)
class Scope:
    """What the enclosing blocks allow: `break` needs a loop, `return` a function, and so on."""

    depth: int = 0
    in_loop: bool = False
    in_function: bool = False
    in_async: bool = False
    in_class: bool = False


Line = tuple[int, str]  # (indent level, text)


# Templates name their holes; `fill` draws a value only for the holes a template has, which
# keeps generation cheap (a draw per hole, not per alternative).
HOLE = re.compile(r"\{(n|s|m|e|str|bool|ctx|target|iter)\}")

EXPRESSIONS = (
    "{n}",
    "{s}",
    "{m}({n})",
    "{m}({n}, {s})",
    "{m}({n}, {s})[0]",
    "{n}.detach()",
    "{n}.data",
    "{n}.item()",
    "float({n})",
    "{n}.tolist()",
    "{n}.cpu().numpy()",
    "criterion({n}, y)",
    "criterion({m}({n}), y)",
    "{n}.sum()",
    "{n}.pow(2).mean()",
    "torch.zeros(2, 8, requires_grad={bool})",
    "torch.tensor({n})",
    "torch.tensor({n}.item(), requires_grad=True)",
    "torch.tanh(x @ W + {s} @ U)",
    "F.relu({n})",
    "0",
    "1e-3",
    "None",
    "{str}",
    "{n}.item() if {n} is not None else 0.0",
    "(lambda t: t.detach())({s})",
    "[t.item() for t in {n}]",
    "{{k: v.detach() for k, v in {n}.items()}}",
    "sum(t.item() for t in {n})",
    "({n} := {m}({n}))",
    "({n}, {s})",
    "{m}(*{n}, **kw)",
    "{e} + {e}",
    "{e} * {e}",
    "({e} @ {e})",
    "{e} if {n} else {e}",
    "torch.sigmoid({n})",
    "{n}.exp()",
    "torch.softmax({n}, dim=-1)",
    "F.linear({n}, W)",
)
ASYNC_EXPRESSIONS = ("await {m}({n})",)

SIMPLE = (
    "{n} = {e}",
    "{n} = {e}",
    "out, {s} = {m}(x, {s})",
    "out, ({s}, c) = lstm(x, ({s}, c))",
    "out, *rest = {m}(x, {s})",
    "{s} = {s}.detach()",
    "{s} = h_next",
    "h_next = {m}(x, {s})",
    "{s} = tuple(t.detach() for t in {s})",
    "{n}.backward()",
    "{n}.backward(retain_graph=True)",
    "{n}.sum().backward()",
    "torch.autograd.backward({n})",
    "T.autograd.backward({n})",
    "loss = criterion({m}(x), y)",
    "loss = criterion(out, y) + {n}",
    "loss = loss.item()",
    "opt.zero_grad()",
    "opt.step()",
    "total += {n}.item()",
    "total = total + {n}.item()",
    "print({n}.item(), {str})",
    "{n}: torch.Tensor = {e}",
    "{n}[0] = {s}",
    "{n} += {s}",
    "del {n}",
    "pass",
    "assert {n}.item() > 0, {str}",
    "if (v := {n}.item()) > 0: print(v)",
    "{n}.requires_grad_()",
    "{n}.grad.zero_()",
    "{n}.add_(1)",
    "{n}.clamp_(0, 1)",
    "torch.relu_({n})",
    "F.relu({n}, inplace=True)",
    "{n} *= 2",
    "{n}.backward(create_graph=True)",
    "(g,) = torch.autograd.grad({n}, x)",
    "self.hidden = {e}",
    "x, y = {e}, {e}",
    "...",
    "raise ValueError({n})",
)
LOOP_SIMPLE = ("break", "continue")
FUNCTION_SIMPLE = ("return {e}", "return", "yield {n}.item()")
ASYNC_SIMPLE = ("await {m}({n})", "{n} = await {m}({n})")

# Multi-line shapes the rules flag (or nearly flag), with holes; levels are relative.
MOTIFS: tuple[tuple[Line, ...], ...] = (
    (
        (0, "with {ctx}:"),
        (1, "out = {m}(x)"),
        (1, "loss = criterion(out, y)"),
        (0, "loss.backward()"),
    ),
    ((0, "with torch.no_grad():"), (1, "loss = model(x).sum()"), (0, "loss.backward()")),
    ((0, "loss = criterion(model(x), y).item()"), (0, "loss.backward()")),
    ((0, "loss = float(model(x).mean())"), (0, "loss.backward()")),
    ((0, "loss = torch.tensor(loss.item(), requires_grad=True)"), (0, "loss.backward()")),
    (
        (0, "for {target} in {iter}:"),
        (1, "out, {s} = {m}(x, {s})"),
        (1, "loss = criterion(out, y)"),
        (1, "loss.backward()"),
    ),
    (
        (0, "for {target} in {iter}:"),
        (1, "h_next = cell(x, {s})"),
        (1, "loss = head(h_next).pow(2).mean()"),
        (1, "loss.backward()"),
        (1, "{s} = h_next"),
    ),
    (
        (0, "for _ in range(3):"),
        (1, "out, (h, c) = lstm(x, (h, c))"),
        (1, "out.mean().backward(retain_graph=True)"),
    ),
    (
        (0, "while True:"),
        (1, "out, self.hidden = self.rnn(x, self.hidden)"),
        (1, "self.loss(out).backward()"),
    ),
    (
        (0, "@torch.no_grad()"),
        (0, "def compute_loss(x):"),
        (1, "return model(x).pow(2).mean()"),
        (0, "loss = compute_loss(x)"),
        (0, "loss.backward()"),
    ),
)


def _logical_lines(code: str) -> list[str]:
    """`code`'s lines with each bracketed multi-line statement joined into one line.

    Motif lines get statements spliced between them, which is only valid Python between
    logical lines: a call spread over several lines must stay whole.
    """
    ends, depth = [], 0
    for token in tokenize.generate_tokens(io.StringIO(code + "\n").readline):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif token.type in (tokenize.NEWLINE, tokenize.NL) and depth == 0:
            ends.append(token.end[0])
    physical = code.splitlines()
    joined, start = [], 1
    for end in ends:
        if end > len(physical):
            break
        parts = physical[start - 1 : end]
        joined.append(parts[0].rstrip() + "".join(" " + part.strip() for part in parts[1:]))
        start = end + 1
    return joined


def _examples() -> tuple[tuple[Line, ...], ...]:
    """The rules' own INVALID examples as motifs (they use four-space indentation)."""
    from gradguard.core.rule import all_rules

    motifs = []
    for rule in all_rules():
        for example in rule.invalid:
            lines = []
            for raw in _logical_lines(example.code.strip("\n")):
                body = raw.lstrip(" ")
                if body and not body.startswith("from __future__"):
                    lines.append(
                        ((len(raw) - len(body)) // 4, body.replace("{", "{{").replace("}", "}}"))
                    )
            motifs.append(tuple(lines))
    return tuple(motifs)


ALL_MOTIFS = MOTIFS + _examples()


@st.composite
def fill(draw: st.DrawFn, template: str, scope: Scope, depth: int = 0) -> str:
    """Replace each hole of `template` with a drawn value (expressions recurse a little)."""

    def value(match: re.Match[str]) -> str:
        hole = match.group(1)
        if hole == "n":
            return draw(st.sampled_from(NAMES))
        if hole == "s":
            return draw(st.sampled_from(STATE_NAMES))
        if hole == "m":
            return draw(st.sampled_from(MODULES))
        if hole == "str":
            return draw(st.sampled_from(STRINGS))
        if hole == "bool":
            return draw(st.sampled_from(["True", "False"]))
        if hole == "ctx":
            return draw(st.sampled_from(GRAD_CONTEXTS))
        if hole == "target":
            return draw(st.sampled_from(TARGETS))
        if hole == "iter":
            return draw(st.sampled_from(ITERABLES))
        pool = EXPRESSIONS[:-4] if depth >= 2 else EXPRESSIONS
        if scope.in_async:
            pool += ASYNC_EXPRESSIONS
        return draw(fill(draw(st.sampled_from(pool)), scope, depth + 1))

    return HOLE.sub(value, template).replace("{{", "{").replace("}}", "}")


@st.composite
def simple_statements(draw: st.DrawFn, scope: Scope) -> str:
    """One simple statement that is valid in `scope`."""
    pool = SIMPLE
    if scope.in_loop:
        pool += LOOP_SIMPLE
    if scope.in_function:
        pool += FUNCTION_SIMPLE
    if scope.in_async:
        pool += ASYNC_SIMPLE
    return draw(fill(draw(st.sampled_from(pool)), scope))


@st.composite
def motifs(draw: st.DrawFn, scope: Scope) -> list[Line]:
    """A buggy (or nearly buggy) shape with statements spliced between its lines."""
    motif = draw(st.sampled_from(ALL_MOTIFS))
    lines: list[Line] = []
    for level, template in motif:
        depth = scope.depth + level
        # A statement before any line but the first and a decorated `def` stays valid.
        if lines and not lines[-1][1].startswith("@") and draw(st.integers(0, 3)) == 0:
            inner = Scope(depth, scope.in_loop, scope.in_function, scope.in_async)
            lines.append((depth, draw(simple_statements(inner))))
        lines.append((depth, draw(fill(template, scope))))
    return lines


@st.composite
def blocks(draw: st.DrawFn, scope: Scope, min_size: int = 1, max_size: int = 4) -> list[Line]:
    """A non-empty list of statements at `scope.depth`, possibly compound."""
    count = draw(st.integers(min_size, max_size))
    lines: list[Line] = []
    for _ in range(count):
        kind = draw(st.integers(0, 5))
        if kind == 0 and scope.depth < 4:
            lines += draw(compound_statements(scope))
        elif kind == 1 and scope.depth < 5:
            lines += draw(motifs(scope))
        else:
            lines.append((scope.depth, draw(simple_statements(scope))))
    return lines


def _inner(scope: Scope, **changes: bool) -> Scope:
    values = {
        "depth": scope.depth + 1,
        "in_loop": scope.in_loop,
        "in_function": scope.in_function,
        "in_async": scope.in_async,
        "in_class": False,
    }
    values.update(changes)
    return Scope(**values)  # type: ignore[arg-type]


@st.composite
def compound_statements(draw: st.DrawFn, scope: Scope) -> list[Line]:
    """One compound statement (with, for, while, if, try, match, def, class) with its body."""
    d = scope.depth
    kind = draw(
        st.sampled_from(
            ["with", "for", "while", "if", "try", "match", "def", "class", "async_def"]
            + (["async_for", "async_with"] if scope.in_async else [])
        )
    )
    if kind in ("with", "async_with"):
        head = "async with lock:" if kind == "async_with" else draw(fill("with {ctx}:", scope))
        return [(d, head), *draw(blocks(_inner(scope)))]
    if kind in ("for", "async_for"):
        prefix = "async for" if kind == "async_for" else "for"
        head = draw(fill(prefix + " {target} in {iter}:", scope))
        lines = [(d, head), *draw(blocks(_inner(scope, in_loop=True)))]
        if draw(st.booleans()):
            lines += [(d, "else:"), *draw(blocks(_inner(scope), max_size=2))]
        return lines
    if kind == "while":
        cond = draw(st.sampled_from(["True", "step < 10", "loss.item() > 0.1"]))
        return [(d, f"while {cond}:"), *draw(blocks(_inner(scope, in_loop=True)))]
    if kind == "if":
        lines = [(d, draw(fill("if {n} is not None:", scope))), *draw(blocks(_inner(scope)))]
        if draw(st.booleans()):
            lines += [(d, "elif training:"), *draw(blocks(_inner(scope), max_size=2))]
        if draw(st.booleans()):
            lines += [(d, "else:"), *draw(blocks(_inner(scope), max_size=2))]
        return lines
    if kind == "try":
        lines = [(d, "try:"), *draw(blocks(_inner(scope)))]
        star = "*" if sys.version_info >= (3, 11) and draw(st.booleans()) else ""
        lines += [(d, f"except{star} (RuntimeError, ValueError) as err:")]
        lines += draw(blocks(_inner(scope), max_size=2))
        if not star and draw(st.booleans()):
            lines += [(d, "except Exception:"), *draw(blocks(_inner(scope), max_size=1))]
        if draw(st.booleans()):
            lines += [(d, "finally:"), *draw(blocks(_inner(scope), max_size=2))]
        return lines
    if kind == "match":
        lines = [(d, draw(fill("match {n}:", scope)))]
        patterns = draw(
            st.lists(
                st.sampled_from(
                    ["0", "[a, b]", "{'loss': v}", "Point(x=0)", "str() | bytes()", "(h, c)", "_"]
                ),
                min_size=1,
                max_size=3,
                unique=True,
            )
        )
        if "_" in patterns:  # an irrefutable pattern must come last
            patterns = [p for p in patterns if p != "_"] + ["_"]
        for pattern in patterns:
            lines.append((d + 1, f"case {pattern}:"))
            lines += draw(blocks(Scope(d + 2, scope.in_loop, scope.in_function, scope.in_async)))
        return lines
    if kind in ("def", "async_def"):
        is_async = kind == "async_def"
        decorators = draw(st.lists(st.sampled_from(DECORATORS), max_size=2))
        params = (
            "self, x, h=None"
            if scope.in_class
            else draw(
                st.sampled_from(["x", "x, h", "model, loader, *, steps=3", "*args, **kw", ""])
            )
        )
        name = draw(st.sampled_from(["train", "step", "forward", "compute_loss", "训练"]))
        head = f"{'async def' if is_async else 'def'} {name}({params}) -> None:"
        body = draw(blocks(Scope(d + 1, False, True, is_async, False)))
        return [*((d, dec) for dec in decorators), (d, head), *body]
    # class: methods and plain statements mixed
    lines = [(d, f"class {draw(st.sampled_from(['Trainer', 'Net', 'Model']))}(nn.Module):")]
    inner = Scope(d + 1, False, False, False, True)
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            lines += draw(compound_statements(inner))
        else:
            lines.append((d + 1, draw(simple_statements(Scope(d + 1)))))
    return lines


@dataclass(frozen=True)
class Layout:
    """How a program is written out: the parts a fix must keep byte for byte."""

    indent: str = "    "
    newline: str = "\n"
    bom: bool = False
    trailing_comments: bool = False
    blank_lines: bool = False
    final_newline: bool = True


layouts = st.builds(
    Layout,
    indent=st.sampled_from(["    ", "  ", "\t"]),
    newline=st.sampled_from(["\n", "\r\n"]),
    bom=st.booleans(),
    trailing_comments=st.booleans(),
    blank_lines=st.booleans(),
    final_newline=st.booleans(),
)


def render(lines: list[Line], layout: Layout) -> str:
    """Write (indent, text) lines out with `layout`."""
    out: list[str] = []
    for number, (level, text) in enumerate(lines):
        line = layout.indent * level + text
        if layout.trailing_comments and not text.endswith(":") and number % 2 == 0:
            line += f"  # note {number} ✓"
        out.append(line)
        if layout.blank_lines and number % 3 == 2:
            out.append("")
    body = layout.newline.join(out) + (layout.newline if layout.final_newline else "")
    return ("\ufeff" if layout.bom else "") + body


@st.composite
def torch_programs(draw: st.DrawFn) -> str:
    """A whole torch-flavoured module: imports, some setup, then generated statements."""
    header = list(draw(st.sampled_from(HEADERS)))
    setup = draw(st.lists(st.sampled_from(SETUP), max_size=5, unique=True))
    lines: list[Line] = [(0, text) for text in header + setup]
    lines += draw(blocks(Scope(), min_size=1, max_size=6))
    return render(lines, draw(layouts))
