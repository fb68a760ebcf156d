"""Gradient accumulation: which `if` runs a statement only every k-th iteration, and whether
a loss reaches `backward()` without ever being scaled.

Everything here is syntactic and conservative. `periodic_divisor` recognises the guard of an
accumulation step (`if (i + 1) % k == 0:`), `counts_to_a_step` one counted by hand (`if
seen >= k:` ... `seen = 0`), and `LossPath` follows a backpropagated
expression back through the assignments of its loop to the calls it was computed by: the
path is *unscaled* only when every step of it is visible and none of them multiplies or
divides (nor sums, which is a scale convention of its own). Anything the walk does not
understand makes the answer "unknown", which is never "unscaled".
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gradguard.analysis.names import arguments_by_parameter, dotted, kept_parameters
from gradguard.analysis.unfilled_grads import binds, scope_nodes
from gradguard.analysis.values import Grad, Kind, Value

if TYPE_CHECKING:
    from gradguard.analysis.events import Append, RepeatedDraw

# Tensor methods that keep a loss's scale (checked against torch 2.13.0: conversions, views,
# device moves and `mean`, which averages within the micro-batch only).
NEUTRAL_TENSOR_METHODS = frozenset(
    {
        "mean",
        "float",
        "double",
        "half",
        "bfloat16",
        "to",
        "cuda",
        "cpu",
        "squeeze",
        "unsqueeze",
        "view",
        "reshape",
        "flatten",
        "contiguous",
        "clone",
        "type_as",
    }
)
# Last names of calls that scale what they are given (torch 2.13.0 spellings).
SCALING_CALLS = frozenset(
    {
        "div",
        "div_",
        "divide",
        "true_divide",
        "floor_divide",
        "mul",
        "mul_",
        "multiply",
        "sum",
        "nansum",
        "scale",
        "addcmul",
        "addcdiv",
        "lerp",
    }
)
_SCALING_OPERATORS = (ast.Mult, ast.Div, ast.MatMult)
_NEUTRAL_OPERATORS = (ast.Add, ast.Sub)


def periodic_divisor(test: ast.expr) -> ast.expr | None:
    """The k of a guard that is true once every k iterations: `X % k == 0`, `0 == X % k`,
    `not X % k`, or one of those or-ed with another condition (`... or last_batch`). k must
    be a name, an attribute chain or an integer literal other than 0 and 1."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        found = [k for value in test.values if (k := periodic_divisor(value)) is not None]
        return found[0] if len(found) == 1 else None
    modulo: ast.expr | None = None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        modulo = test.operand
    elif (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and len(test.comparators) == 1
    ):
        left, right = test.left, test.comparators[0]
        modulo = left if _is_zero(right) else right if _is_zero(left) else None
    if not (isinstance(modulo, ast.BinOp) and isinstance(modulo.op, ast.Mod)):
        return None
    divisor = modulo.right
    if isinstance(divisor, ast.Constant):
        value = divisor.value
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 2
        return divisor if ok else None
    if dotted(divisor) is not None or _setting_key(divisor) is not None:
        return divisor
    return None


def counts_to_a_step(guard: ast.If, loop_body: list[ast.stmt]) -> bool:
    """A guard true once a counter reaches a bound: `if seen >= k:` (or `>`, `==`), where
    the loop body adds to `seen` (`seen += len(x)`) before the guard on every iteration, and
    the guarded block starts the count again (`seen = 0`): accumulation by samples or steps
    counted by hand."""
    test = guard.test
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.GtE | ast.Gt | ast.Eq)
    ):
        return False
    counter = dotted(test.left)
    if counter is None or guard not in loop_body:
        return False
    before = loop_body[: loop_body.index(guard)]
    counts = any(
        isinstance(stmt, ast.AugAssign)
        and isinstance(stmt.op, ast.Add)
        and dotted(stmt.target) == counter
        for stmt in before
    )
    resets = any(
        isinstance(stmt, ast.Assign)
        and [dotted(t) for t in stmt.targets] == [counter]
        and _is_zero(stmt.value)
        for stmt in guard.body
    )
    return counts and resets


def _setting_key(expr: ast.expr) -> str | None:
    """`"accum_steps"` of `cfg["accum_steps"]` or `self.cfg["accum_steps"]`: a setting read
    by a string key from a name or attribute."""
    if (
        isinstance(expr, ast.Subscript)
        and isinstance(expr.slice, ast.Constant)
        and isinstance(expr.slice.value, str)
        and dotted(expr.value) is not None
    ):
        return expr.slice.value
    return None


def _is_zero(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value == 0 and expr.value is not False


def divisor_mentions(node: ast.AST, divisor: ast.expr) -> bool:
    """True when `node` reads the divisor: the same name or the same last attribute
    (`args.accum_steps` and `self.args.accum_steps`), or the same literal."""
    if isinstance(divisor, ast.Constant):
        return any(isinstance(n, ast.Constant) and n.value == divisor.value for n in ast.walk(node))
    wanted = divisor.attr if isinstance(divisor, ast.Attribute) else dotted(divisor)
    key = _setting_key(divisor)
    if key is not None:
        # `cfg["accum_steps"]`: the same key read anywhere, or a name or attribute of it.
        wanted = key
        if any(_setting_key(n) == key for n in ast.walk(node) if isinstance(n, ast.Subscript)):
            return True
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == wanted:
            return True
        if isinstance(n, ast.Attribute) and n.attr == wanted:
            return True
    return False


def scales_by(tree: ast.AST, divisor: ast.expr) -> bool:
    """True when the code multiplies or divides anything by an expression reading the
    divisor (`loss / k`, `lr * k`, `1 / k`, `p.grad /= k`, `x.div_(k)`), or rescales a
    gradient in any way (`p.grad /= n`, `p.grad.mul_(s)`): the accumulation may be averaged
    there. A product or quotient only compared (an operand of a comparison, an argument of
    `torch.allclose(acc, k * ref)`) scales nothing: its value goes no further."""
    compared = _compared(tree) | _sample_counts(tree)
    for node in ast.walk(tree):
        if id(node) in compared:
            continue
        if isinstance(node, ast.BinOp) and isinstance(node.op, _SCALING_OPERATORS):
            if divisor_mentions(node, divisor):
                return True
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, _SCALING_OPERATORS):
            if divisor_mentions(node.value, divisor) or _touches_grad(node.target):
                return True
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in SCALING_CALLS
            and (divisor_mentions(node, divisor) or _touches_grad(node.func.value))
        ):
            return True
    return False


# Last names of calls that only compare their arguments (torch 2.13.0 and `math`).
_COMPARING_CALLS = frozenset({"allclose", "isclose", "equal", "assert_close"})


def _compared(tree: ast.AST) -> set[int]:
    """id() of the arithmetic (and everything in it) that is an operand of a comparison or
    an argument of a comparing call (`_COMPARING_CALLS`), directly or through further
    arithmetic: values used for nothing but the comparison."""
    operands: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands.extend([node.left, *node.comparators])
        elif isinstance(node, ast.Call) and _last_name(node.func) in _COMPARING_CALLS:
            operands.extend([*node.args, *(k.value for k in node.keywords)])
    found: set[int] = set()
    for operand in operands:
        if isinstance(operand, ast.BinOp | ast.UnaryOp):
            found.update(id(n) for n in ast.walk(operand))
    return found


# Last names of torch functions whose positional arguments are all sizes or int bounds
# (torch 2.13.0: `randn(*size)`, `randint(low, high, size)`, `arange(start, end, step)`).
_SIZE_CALLS = frozenset({"randn", "rand", "zeros", "ones", "empty", "randint", "arange", "range"})


def _sample_counts(tree: ast.AST) -> set[int]:
    """id() of the arithmetic (and everything in it) that can only be a count of samples or
    steps: a product used, directly or through a name bound once in the file and read
    nowhere else, as a slice bound (`images[:big]`), a positional argument of a sizing call
    (`torch.randn(n, 3)`, `torch.randint(0, c, (n,))`, `range(n)`) or in an f-string. The
    number of samples in an accumulated batch (`bs * accum_steps`) scales no loss."""
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    stores: dict[str, list[ast.Name]] = {}
    loads: dict[str, list[ast.Name]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else stores).setdefault(node.id, []).append(
                node
            )
    found: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.BinOp) or isinstance(parents.get(id(node)), ast.BinOp):
            continue
        owner = parents.get(id(node))
        if _sizes(node, parents) or (
            isinstance(owner, ast.Assign)
            and len(owner.targets) == 1
            and isinstance(name := owner.targets[0], ast.Name)
            and len(stores.get(name.id, [])) == 1
            and loads.get(name.id)
            and all(_sizes(read, parents) for read in loads[name.id])
        ):
            found.update(id(n) for n in ast.walk(node))
    return found


def _sizes(expr: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """True when `expr` is used as a slice bound, a positional argument (or an element of a
    tuple that is one) of a sizing call (`_SIZE_CALLS`), or a value in an f-string."""
    owner = parents.get(id(expr))
    if isinstance(owner, ast.Tuple):
        expr, owner = owner, parents.get(id(owner))
    if isinstance(owner, ast.Slice):
        return expr is owner.lower or expr is owner.upper
    if isinstance(owner, ast.FormattedValue):
        return True
    return (
        isinstance(owner, ast.Call)
        and _last_name(owner.func) in _SIZE_CALLS
        and any(a is expr for a in owner.args)
    )


def _touches_grad(expr: ast.expr) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "grad" for n in ast.walk(expr))


def sums_by_reduction(tree: ast.AST) -> bool:
    """True when some loss of the file sums instead of averaging (`reduction="sum"`,
    `size_average=False`): accumulating sums over micro-batches is then the convention."""
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and isinstance(node.value, ast.Constant):
            if node.arg == "reduction" and node.value.value == "sum":
                return True
            if node.arg in ("size_average", "reduce") and node.value.value is False:
                return True
    return False


@dataclass
class LossPath:
    """Follows a backpropagated expression back to where it was computed, inside `loop`.

    `torch_calls` are id()s of calls of torch functions, `module_calls` of calls of known
    modules; `local_functions` the names of functions and lambdas defined in the file,
    whose calls could scale. A call of anything else is accepted only as a plain callee
    (`criterion(out, y)`, `self.model(x)`): a module or loss object the file was handed.
    """

    loop: ast.For | ast.AsyncFor | ast.While
    before: int  # the line of the backward call: bindings after it do not feed it
    torch_calls: set[int]
    module_calls: set[int]
    local_functions: frozenset[str]
    # Functions of the file that only return an expression (`def compute_loss(self, x, y):
    # return self.criterion(self.model(x), y)`), by name: followed into that expression.
    helpers: dict[str, ast.FunctionDef] = field(default_factory=dict)
    _bindings: dict[str, list[ast.stmt]] | None = field(default=None, repr=False)
    _seen: set[str] = field(default_factory=set, repr=False)

    def unscaled(self, expr: ast.expr, root: bool = True) -> bool:
        """True when `expr` reaches backward with no scaling on any of its visible steps."""
        if isinstance(expr, ast.Name):
            return self._name_unscaled(expr.id, root)
        if isinstance(expr, ast.Constant):
            return True
        if isinstance(expr, ast.Attribute):
            return self.unscaled(expr.value, root=False)
        if isinstance(expr, ast.Subscript):
            return self.unscaled(expr.value, root=False)  # indexing picks, never scales
        if isinstance(expr, ast.UnaryOp):
            return isinstance(expr.op, ast.USub | ast.UAdd) and self.unscaled(expr.operand, False)
        if isinstance(expr, ast.BinOp):
            return (
                isinstance(expr.op, _NEUTRAL_OPERATORS)
                and self.unscaled(expr.left, False)
                and self.unscaled(expr.right, False)
            )
        if isinstance(expr, ast.Call):
            return self._call_unscaled(expr)
        if isinstance(expr, ast.Tuple | ast.List):
            return _all(self, expr.elts)
        return False

    def _call_unscaled(self, call: ast.Call) -> bool:
        """A torch function or a neutral tensor method passes its operands' scale on, so they
        are followed; a model or a loss object (a known module, or an object the file was
        handed) computes something new from its inputs: scaling them does not average the
        loss, so they are not followed."""
        func = call.func
        if _grad_scaler_scale(call):
            return _all(self, call.args)  # scaled for mixed precision, unscaled before the step
        if isinstance(func, ast.Attribute) and func.attr in SCALING_CALLS:
            return False
        if id(call) in self.module_calls:
            return True
        operands = [*call.args, *(k.value for k in call.keywords)]
        if any(isinstance(a, ast.Starred) for a in call.args):
            return False
        if id(call) in self.torch_calls:
            return _all(self, operands)
        if isinstance(func, ast.Attribute) and func.attr in NEUTRAL_TENSOR_METHODS:
            return self.unscaled(func.value, root=False) and _all(self, operands)
        return self._plain_callee(func) or self._helper_unscaled(func)

    def _helper_unscaled(self, func: ast.expr) -> bool:
        """`compute_loss(...)` / `self.compute_loss(...)`, a function of the file that only
        returns an expression: unscaled when that expression is, its names (parameters,
        the callers' values) counting as values from outside."""
        name = func.id if isinstance(func, ast.Name) else None
        if isinstance(func, ast.Attribute) and dotted(func.value) == "self":
            name = func.attr
        helper = self.helpers.get(name) if name is not None else None
        returned = helper.body[-1] if helper is not None else None
        if not isinstance(returned, ast.Return) or returned.value is None:
            return False
        if f"def {name}" in self._seen:
            return False  # recursion
        self._seen.add(f"def {name}")
        inner = LossPath(
            self.loop,
            self.before,
            self.torch_calls,
            self.module_calls,
            self.local_functions,
            self.helpers,
            _bindings={},
            _seen=self._seen,
        )
        return inner.unscaled(returned.value, root=False)

    def _plain_callee(self, func: ast.expr) -> bool:
        """`criterion`, `model`, `self.model`: an object called, not a function of the file."""
        if isinstance(func, ast.Name):
            return func.id not in self.local_functions
        return (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and func.attr not in self.local_functions
        )

    def _name_unscaled(self, name: str, root: bool) -> bool:
        bindings = self._bound().get(name)
        if bindings is None:
            return not root  # a value from outside the loop: data, a model, a constant
        if name in self._seen:
            return True  # already being followed (`loss = loss + reg`)
        self._seen.add(name)
        return all(self._binding_unscaled(stmt, root) for stmt in bindings)

    def _binding_unscaled(self, stmt: ast.stmt, root: bool) -> bool:
        if isinstance(stmt, ast.Assign) and all(_plain_target(t) for t in stmt.targets):
            return self.unscaled(stmt.value, root=False)
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            return self.unscaled(stmt.value, root=False)
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, _NEUTRAL_OPERATORS):
            return self.unscaled(stmt.value, root=False)
        if isinstance(stmt, ast.For | ast.AsyncFor):
            return not root  # the batch a data loop yields
        return False

    def _bound(self) -> dict[str, list[ast.stmt]]:
        if self._bindings is None:
            self._bindings = {}
            for stmt in _statements(self.loop):
                if stmt.lineno > self.before:
                    continue
                for name in _bound_names(stmt):
                    self._bindings.setdefault(name, []).append(stmt)
        return self._bindings


def _grad_scaler_scale(call: ast.Call) -> bool:
    """`scaler.scale(loss)` on a receiver named like a `torch.amp.GradScaler`: the factor is
    divided out again by `scaler.step(optimizer)` (or `scaler.unscale_`), so it does not
    average anything."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "scale"
        and "scaler" in (dotted(func.value) or "").lower()
        and len(call.args) == 1
        and not call.keywords
    )


def _plain_target(target: ast.expr) -> bool:
    """`x` or `x, y` (unpacking binds each name to a part of the value, unscaled)."""
    if isinstance(target, ast.Tuple | ast.List):
        return all(isinstance(e, ast.Name) for e in target.elts)
    return isinstance(target, ast.Name)


def _all(path: LossPath, expressions: Iterable[ast.expr]) -> bool:
    return all(path.unscaled(e, root=False) for e in expressions)


def _statements(loop: ast.AST) -> Iterator[ast.stmt]:
    """The statements in `loop`, nested ones too, but not those of functions defined in it;
    the loop's own target counts as a binding statement."""
    yield loop  # type: ignore[misc]
    stack: list[ast.AST] = list(ast.iter_child_nodes(loop))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.stmt):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _bound_names(stmt: ast.stmt) -> Iterator[str]:
    """Names a statement binds, by any means (targets, `with ... as`, imports, walrus...)."""
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
        targets = [stmt.target]
    elif isinstance(stmt, ast.With | ast.AsyncWith):
        targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
    elif isinstance(stmt, ast.Import | ast.ImportFrom):
        yield from ((a.asname or a.name).split(".")[0] for a in stmt.names)
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                yield node.id
    # `(x := ...)` in an expression of this statement (not of nested statements).
    for child in ast.iter_child_nodes(stmt):
        if isinstance(child, ast.expr):
            for node in ast.walk(child):
                if isinstance(node, ast.NamedExpr):
                    yield node.target.id


def returning_helpers(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """Undecorated functions and methods of the file whose body is one `return <expr>`
    (after a docstring), by name, when no other definition in the file has that name."""
    found: dict[str, ast.FunctionDef] = {}
    twice: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if node.name in found or node.name in twice:
            twice.add(node.name)
            found.pop(node.name, None)
            continue
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        if (
            isinstance(node, ast.FunctionDef)
            and not node.decorator_list
            and len(body) == 1
            and isinstance(body[0], ast.Return)
        ):
            found[node.name] = node
        else:
            twice.add(node.name)
    return found


def local_callables(tree: ast.Module) -> frozenset[str]:
    """Names of functions, methods and classes defined in the file, and names bound to a
    lambda or `partial(...)`: calling one of them runs code that could scale a loss."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda | ast.Call):
            value = node.value
            if isinstance(value, ast.Call) and dotted(value.func) not in (
                "partial",
                "functools.partial",
            ):
                continue
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.add(target.id)
                elif isinstance(target, ast.Attribute):
                    found.add(target.attr)
    return frozenset(found)


# --- an accumulation window of a loop: clear, backward on every micro-batch, step ------------


@dataclass(frozen=True)
class LoopWindow:
    """`zero_grad()`, then a loop backpropagating on every iteration over the micro-batches
    a caller gathered from a loader, then one `step()`, all statements of one function's
    body: the step applies the sum of the micro-batches' gradients."""

    cleared: ast.stmt
    loop: ast.For | ast.AsyncFor
    step: ast.stmt


def batch_appends(appends: Iterable[Append]) -> frozenset[int]:
    """id() of every `xs.append(item)` call whose every recorded run appends batch data
    (`Value.batch`: a batch drawn from a loader, or a part of one), for `loop_window`."""
    batch: set[int] = set()
    other: set[int] = set()
    for event in appends:
        (batch if event.item.batch else other).add(id(event.node))
    return frozenset(batch - other)


def loop_window(
    function: ast.AST, step: ast.stmt, tree: ast.Module, appended_batches: frozenset[int]
) -> LoopWindow | None:
    """The window `step` (a statement of `function`'s own body) closes: the last loop before
    it in that body iterating loader batches (`gathered_batches`, `appended_batches` the
    ids `batch_appends` gives), with a
    `zero_grad()` before the loop, and no step, `zero_grad()` or write to a `.grad` inside
    the loop nor between the loop and the step. None otherwise."""
    body: list[ast.stmt] = getattr(function, "body", [])
    at = next((i for i, s in enumerate(body) if s is step), None)
    if at is None:
        return None
    found = [
        i
        for i, s in enumerate(body[:at])
        if isinstance(s, ast.For | ast.AsyncFor)
        and gathered_batches(function, s, tree, appended_batches)
    ]
    if not found:
        return None
    loop = body[found[-1]]
    assert isinstance(loop, ast.For | ast.AsyncFor)
    if any(_updates(s) for s in body[found[-1] : at]):
        return None
    cleared = [s for s in body[: found[-1]] if _clears(s)]
    return LoopWindow(cleared[-1], loop, step) if cleared else None


@dataclass(frozen=True)
class CountedWindow:
    """`for _ in range(k):` (a loop whose body certainly runs at least twice each time it is
    reached, `trips` times) backpropagating on every iteration, then one `step()` after it
    in the same block, with a `zero_grad()` in that block before the loop or, when the block
    is a loop's body, after the step (clearing for the next window). The loop's target is
    never read in its body: every iteration runs the same computation, on whatever it draws
    anew (a batch, a sample), not on a task, a head or a time step the target picks. `count`
    is the bound of `range(count)`, when the loop is one."""

    cleared: ast.stmt
    loop: ast.For | ast.AsyncFor
    step: ast.stmt
    trips: int
    count: ast.expr | None


def counted_window(
    block: list[ast.stmt],
    step: ast.stmt,
    trips: Callable[[ast.AST], int],
    drawn: Callable[[ast.expr], bool] = lambda _: False,
) -> CountedWindow | None:
    """The counted window (`CountedWindow`) that `step`, a statement of `block`, closes:
    the last `for` loop before it in the block, when `trips` (see `loop_entry.fewest_trips`)
    says it runs at least twice, its target is unread in its body (but for picking an item
    of a list `drawn` says holds draws alike, `micro[i]` of `micro = [get_batch() for _ in
    range(k)]`: each iteration then runs the same computation on another draw), and neither
    the loop nor the statements between it and the step step an optimizer, clear gradients
    or write a `.grad`. None otherwise."""
    at = next((i for i, s in enumerate(block) if s is step), None)
    if at is None:
        return None
    loops = [i for i, s in enumerate(block[:at]) if isinstance(s, ast.For | ast.AsyncFor)]
    if not loops:
        return None
    loop = block[loops[-1]]
    assert isinstance(loop, ast.For | ast.AsyncFor)
    count = trips(loop)
    if count < 2 or _target_read(loop, drawn) or any(_updates(s) for s in block[loops[-1] : at]):
        return None
    cleared = [s for s in block[: loops[-1]] if _clears(s)] + [
        s for s in block[at + 1 :] if _clears(s)
    ]
    if not cleared:
        return None
    return CountedWindow(cleared[0], loop, step, count, _range_bound(loop.iter))


def _target_read(
    loop: ast.For | ast.AsyncFor, drawn: Callable[[ast.expr], bool] = lambda _: False
) -> bool:
    """True when the body (or `else`) of `loop` reads a name its target binds, other than
    as the index of a list of draws alike (`micro[i]`, `drawn(micro)`) the loop never
    rebinds."""
    bound = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    nodes = [node for stmt in [*loop.body, *loop.orelse] for node in ast.walk(stmt)]
    rebound = {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    picking = {
        id(node.slice)
        for node in nodes
        if isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Name)
        and isinstance(node.value, ast.Name)
        and node.value.id not in rebound
        and drawn(node.value)
    }
    return any(
        isinstance(node, ast.Name)
        and node.id in bound
        and isinstance(node.ctx, ast.Load)
        and id(node) not in picking
        for node in nodes
    )


def _range_bound(iterable: ast.expr) -> ast.expr | None:
    """`k` of `range(k)`; None for anything else."""
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and len(iterable.args) == 1
        and not iterable.keywords
    ):
        return iterable.args[0]
    return None


def _clears(stmt: ast.stmt) -> bool:
    """`optimizer.zero_grad()` (or `model.zero_grad(...)`) as a statement of its own."""
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr == "zero_grad"
    )


def _updates(stmt: ast.stmt) -> bool:
    """A step, a `zero_grad` or a write to a `.grad` anywhere in `stmt`."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Attribute) and node.attr in ("step", "zero_grad"):
            return True
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "grad"
            and not isinstance(node.ctx, ast.Load)
        ):
            return True
    return False


def gathered_batches(
    function: ast.AST,
    loop: ast.For | ast.AsyncFor,
    tree: ast.Module,
    appended_batches: frozenset[int],
) -> bool:
    """True when `loop` iterates a parameter of `function` that the function's only call in
    the file fills with batches of a loader: `buffer.append(batch)` of batch data
    (`Value.batch`, whatever the loader is called: `for batch in dl:`,
    `enumerate(self.data)`, `next(it)`; `appended_batches` holds those appends) in a loop
    around the call, `buffer` passed for the parameter. Micro-batches, each a mean over its
    own samples: not the tasks, heads or loss terms of one batch, nor pieces of one batch
    (`x.split`)."""
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    if not isinstance(loop.iter, ast.Name) or not isinstance(loop.target, ast.Name | ast.Tuple):
        return False
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _last_name(node.func) == function.name
    ]
    named = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.name == function.name
    ]
    if len(calls) != 1 or len(named) != 1:
        return False
    (call,) = calls
    method = isinstance(call.func, ast.Attribute)
    passed = arguments_by_parameter(function, call, skip_self=method)
    argument = passed.get(loop.iter.id) if passed is not None else None
    if not isinstance(argument, ast.Name):
        return False
    return any(
        _appends_batches(outer, argument.id, call, appended_batches)
        for outer in ast.walk(tree)
        if isinstance(outer, ast.For | ast.AsyncFor | ast.While)
    )


def _appends_batches(
    outer: ast.For | ast.AsyncFor | ast.While,
    buffer: str,
    call: ast.Call,
    appended_batches: frozenset[int],
) -> bool:
    """`outer` holds `call` and appends to `buffer` a value that is batch data (its id in
    `appended_batches`)."""
    if not any(n is call for n in ast.walk(outer)):
        return False
    return any(
        isinstance(node, ast.Call)
        and id(node) in appended_batches
        and isinstance(node.func, ast.Attribute)
        and dotted(node.func.value) == buffer
        for node in ast.walk(outer)
    )


def _last_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def rescales_grad(tree: ast.AST) -> bool:
    """True when the code rescales a `.grad` anywhere (`p.grad /= n`, `p.grad.mul_(s)`,
    `p.grad = p.grad / n`, `p.grad.data.div_(n)`): the sum may be averaged there."""
    for node in ast.walk(tree):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, _SCALING_OPERATORS):
            if _touches_grad(node.target):
                return True
        elif isinstance(node, ast.Assign) and any(_touches_grad(t) for t in node.targets):
            if any(isinstance(n, ast.BinOp | ast.Call) for n in ast.walk(node.value)):
                return True
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in SCALING_CALLS
            and _touches_grad(node.func.value)
        ):
            return True
    return False


# --- draws alike: a list of micro-batches made the same way, one per item -----------------


def drawn_lists(draws: Iterable[RepeatedDraw]) -> dict[int, RepeatedDraw]:
    """The list comprehensions of draws alike (`RepeatedDraw`, by id() of the comprehension)
    whose every reach in the recorded pass certainly makes at least two items, each data:
    a tensor, or a tuple or list of tensors, none certainly with history and none a module
    (`[get_batch("train") for _ in range(k)]`: micro-batches, each a mean over its own
    samples; not the heads `[nn.Linear(4, 1) for _ in range(k)]` nor the outputs
    `[model(x) for _ in range(k)]` of one batch)."""
    found: dict[int, RepeatedDraw] = {}
    failed: set[int] = set()
    for draw in draws:
        if draw.context is not None:
            continue
        if draw.trips < 2 or not _data(draw.value):
            failed.add(id(draw.node))
        else:
            found.setdefault(id(draw.node), draw)
    return {key: draw for key, draw in found.items() if key not in failed}


def _data(value: Value) -> bool:
    """A tensor without certain history, or a tuple or list of such tensors."""
    if value.kind is Kind.TENSOR:
        return value.grad is not Grad.TRACKED
    elements = value.elements
    return (
        value.kind is Kind.SEQUENCE
        and bool(elements)
        and all(e.kind is Kind.TENSOR and e.grad is not Grad.TRACKED for e in elements or ())
    )


def drawn_list(
    scope: ast.AST, expr: ast.expr, draws: dict[int, RepeatedDraw]
) -> RepeatedDraw | None:
    """The draws alike (`drawn_lists`) `expr` holds: the comprehension itself, or a name
    bound only once in `scope` (a function, or the module), by `name = [...]` to one."""
    if isinstance(expr, ast.Name):
        nodes = list(scope_nodes(scope))
        if sum(1 for node in nodes if binds(node, expr.id)) != 1:
            return None
        assigned = [
            node.value
            for node in nodes
            if isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == expr.id
        ]
        expr = assigned[0] if assigned else expr
    return draws.get(id(expr)) if isinstance(expr, ast.ListComp) else None


@dataclass(frozen=True)
class HandedWindow:
    """A call of a function of the file (`accumulate(model, batches)`, statement `stmt`)
    handed a list of draws alike (`drawn_list`: `[get_batch() for _ in range(k)]`, at least
    two) that its `loop` iterates (`for x, y in batches:`, or `enumerate(batches)` with the
    index unread), then one `step()` after the call in the same block, with a
    `zero_grad()` in that block before the call or after the step. Neither the function
    nor the statements between the call and the step step an optimizer, clear gradients or
    write a `.grad`: the step applies the sum of what the loop backpropagates."""

    cleared: ast.stmt
    stmt: ast.stmt
    helper: ast.FunctionDef
    loop: ast.For | ast.AsyncFor
    step: ast.stmt
    draw: RepeatedDraw


def handed_window(
    block: list[ast.stmt],
    step: ast.stmt,
    scope: ast.AST,
    defined_once: Callable[[str | None], ast.AST | None],
    draws: dict[int, RepeatedDraw],
) -> HandedWindow | None:
    """The `HandedWindow` that `step`, a statement of `block` (in `scope`), closes: the
    last statement before it calling a function of the file (`defined_once` gives what a
    name calls) is that call. None otherwise."""
    at = next((i for i, s in enumerate(block) if s is step), None)
    calls = [
        (i, call, helper)
        for i, s in enumerate(block[:at])
        if (call := _statement_call(s)) is not None
        and isinstance(helper := defined_once(_last_name(call.func)), ast.FunctionDef)
    ]
    if at is None or not calls:
        return None
    index, call, helper = calls[-1]
    if _updates(helper):
        return None
    if any(_updates(s) for s in block[index + 1 : at]):
        return None
    passed = arguments_by_parameter(helper, call, skip_self=isinstance(call.func, ast.Attribute))
    if passed is None:
        return None
    kept = kept_parameters(helper)
    for loop in helper.body:
        iterated = _iterated_parameter(loop)
        iterated = iterated if iterated in kept else None
        argument = passed.get(iterated) if iterated is not None else None
        draw = drawn_list(scope, argument, draws) if argument is not None else None
        if draw is None or not isinstance(loop, ast.For | ast.AsyncFor):
            continue
        cleared = [s for s in [*block[:index], *block[at + 1 :]] if _clears(s)]
        return HandedWindow(cleared[0], block[index], helper, loop, step, draw) if cleared else None
    return None


def _statement_call(stmt: ast.stmt) -> ast.Call | None:
    """The call a statement runs as a whole: `f(...)`, `x = f(...)`, `a, b = f(...)`."""
    value = stmt.value if isinstance(stmt, ast.Expr | ast.Assign) else None
    return value if isinstance(value, ast.Call) else None


def _iterated_parameter(loop: ast.stmt) -> str | None:
    """`P` of `for x in P:`, or of `for i, x in enumerate(P):` when `i` is unread (the items,
    not their positions, feed the iteration)."""
    if not isinstance(loop, ast.For | ast.AsyncFor):
        return None
    iterated = loop.iter
    if isinstance(iterated, ast.Call) and _last_name(iterated.func) == "enumerate":
        target = loop.target
        if not (
            len(iterated.args) == 1
            and not iterated.keywords
            and isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and isinstance(target.elts[0], ast.Name)
        ):
            return None
        index = target.elts[0].id
        if any(isinstance(n, ast.Name) and n.id == index for s in loop.body for n in ast.walk(s)):
            return None
        iterated = iterated.args[0]
    return iterated.id if isinstance(iterated, ast.Name) else None
