"""Whether a tensor a torch factory makes certainly has an integer (or bool) dtype.

Torch infers the dtype of `torch.tensor(data)` from the data: Python ints give int64, bools
bool, any float float32 (checked against torch 2.13.0); `torch.arange` of ints and
`torch.full` with an int fill give int64, `torch.randint` and `torch.randperm` int64; a
`dtype=` keyword decides whatever the data. A numpy array made with an integer `dtype=`
(`np.empty(n, dtype=np.int64)`) keeps it through item stores (numpy casts what is stored),
and `torch.from_numpy` or `torch.tensor` of it has the same dtype. A tensor of such a dtype
cannot require grad ("Only Tensors of floating point and complex dtype can require
gradients"), which is what GG402 reports when one is asked to (`requires_grad=True`,
`nn.Parameter(t)`).

Only what is certain counts: the data's values must be known (literals, or names and
settings the interpreter knows the ints of), a `dtype=` must resolve to a torch dtype (a
numpy dtype or its name for numpy).
The dtype then travels: copies and reshapes keep it (`kept_integer`), indexing keeps it
(`kept_by_indexing`: `ids[None]`, `ids[mask]`), and `+ - * // %`, the bitwise operators and
unary `-`/`+`/`~` of integer tensors and Python ints give an integer tensor again
(`integral_arithmetic`: `torch.arange(n)[None] - torch.arange(n)[:, None]`).
This module is pure: it reads the evaluated arguments and resolved names it is given.

It also knows when a tensor's floating dtype is certain (`float_dtype`): a factory of
floating values made without `dtype=` has torch's default dtype, float32, unless the file
may change the default (`torch.set_default_dtype`); `dtype=` a floating dtype, or a cast
(`.float()`, `.double()`, `.to(torch.float64)`), gives that one. A cast to the dtype a
tensor already has returns the tensor itself (checked against torch 2.13.0:
`torch.randn(3, requires_grad=True).float()` is the same leaf; `.double()` of it is a new
tensor with a grad_fn), so what a leaf is stays a leaf.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from gradguard.analysis import torch_api as api
from gradguard.analysis.names import callee_name, keyword_value
from gradguard.analysis.values import Grad, Kind, LossKind, Value, evolve

# Factories whose default dtype is int64.
_INTEGER_FACTORIES = frozenset({"randint", "randperm"})
# Factories whose dtype follows their data (`Variable(t)` is `t`, `from_numpy(a)` is `a`'s).
_DATA_FACTORIES = frozenset({"tensor", "as_tensor", "asarray", "Variable", "from_numpy"})
# numpy functions that make an array of the `dtype=` they are given.
_NUMPY_FACTORIES = frozenset(
    {"empty", "zeros", "ones", "full", "array", "asarray", "arange", "empty_like", "zeros_like",
     "ones_like", "full_like"}
)  # fmt: skip
_INTEGRAL_NAMES = frozenset(
    "bool bool_ uint8 uint16 uint32 uint64 int8 int16 int32 int64 intp uintp int_ longlong".split()
)


def integer_factory(
    qualified: str, call: ast.Call, args: list[Value], resolve: Callable[[ast.expr], str | None]
) -> bool:
    """True when `qualified(...)` (a torch factory, `args` its evaluated arguments in order,
    positional then keywords) certainly makes an integer or bool tensor."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        kw.arg is None for kw in call.keywords
    ):
        return False
    dtype = keyword_value(call, "dtype")
    if dtype is not None:
        return resolve(dtype) in api.INTEGRAL_DTYPES
    name = qualified.rsplit(".", 1)[-1]
    positional = args[: len(call.args)]
    if name in _INTEGER_FACTORIES:
        return True
    if name in _DATA_FACTORIES:
        return bool(positional) and _integer_data(positional[0])
    if name == "arange":
        return bool(positional) and all(_int(v) for v in positional)
    if name == "full":
        return len(positional) >= 2 and _int(positional[1])
    if name.endswith("_like") and positional:
        return positional[0].integer_dtype
    return False


def index_factory(
    qualified: str, call: ast.Call, args: list[Value], resolve: Callable[[ast.expr], str | None]
) -> bool:
    """True when `qualified(...)`, a factory `integer_factory` found certainly integral,
    certainly makes an int64 or int32 tensor (`Value.index_dtype`): `dtype=` one of them,
    `torch.randint`/`torch.randperm` (int64), or data of Python ints that are not bools
    (`torch.tensor([0, 2])`, `torch.arange(5)`, `torch.full((3,), 7)`: int64)."""
    dtype = keyword_value(call, "dtype")
    if dtype is not None:
        return resolve(dtype) in api.INDEX_DTYPES
    name = qualified.rsplit(".", 1)[-1]
    positional = args[: len(call.args)]
    if name in _INTEGER_FACTORIES:
        return True
    if name in _DATA_FACTORIES:
        return bool(positional) and _index_data(positional[0])
    if name == "arange":
        return bool(positional) and all(_plain_int(v) for v in positional)
    if name == "full":
        return len(positional) >= 2 and _plain_int(positional[1])
    if name.endswith("_like") and positional:
        return positional[0].index_dtype
    return False


def _plain_int(value: Value) -> bool:
    """A Python int (not a bool) the analysis knows."""
    return value.kind is Kind.SCALAR and type(value.const) is int


def _index_data(value: Value, depth: int = 4) -> bool:
    """Data torch makes an int64 (or keeps an int32) tensor of: an index tensor, a known
    int that is not a bool, or a non-empty list or tuple of such data (nested)."""
    if value.kind is Kind.TENSOR:
        return value.index_dtype
    if _plain_int(value):
        return True
    elements = value.elements
    if depth == 0 or value.kind is not Kind.SEQUENCE or not elements:
        return False
    return all(_index_data(e, depth - 1) for e in elements)


def integer_array(
    qualified: str,
    call: ast.Call,
    resolve: Callable[[ast.expr], str | None],
    args: list[Value] | None = None,
) -> bool:
    """True when the numpy call `qualified(...)` certainly makes an array of an integer or
    bool dtype: a factory given `dtype=` a numpy integer type (`np.int64`) or its name; or,
    without `dtype=`, one whose dtype follows its data (`args`, the evaluated positional
    arguments): `np.array` / `np.asarray` of ints or bools only (`np.array([1, 2, 3])`
    is int64, int32 on Windows with numpy 1: an integer either way), `np.arange` of ints,
    `np.full` with an int fill."""
    name = qualified.removeprefix("numpy.")
    if name not in _NUMPY_FACTORIES:
        return False
    dtype = keyword_value(call, "dtype")
    if dtype is None:
        return _integer_by_data(name, call, args or [])
    if isinstance(dtype, ast.Constant) and isinstance(dtype.value, str):
        return dtype.value in _INTEGRAL_NAMES
    resolved = resolve(dtype)
    return (
        resolved is not None and resolved.startswith("numpy.") and resolved[6:] in _INTEGRAL_NAMES
    )


def _integer_by_data(name: str, call: ast.Call, args: list[Value]) -> bool:
    """Whether numpy's `name(...)` without `dtype=` makes an integer array from its data:
    every positional argument evaluated (no `*` unpacking), no keyword but a known one."""
    if any(isinstance(a, ast.Starred) for a in call.args) or len(args) < len(call.args):
        return False
    given = args[: len(call.args)]
    if name in ("array", "asarray") and len(given) == 1 and not call.keywords:
        return _integer_data(given[0])
    if name == "arange" and 1 <= len(given) <= 3 and not call.keywords:
        return all(v.kind is Kind.SCALAR and type(v.const) is int for v in given)
    if name == "full" and len(given) == 2 and not call.keywords:
        return _int(given[1])
    return False


def _int(value: Value) -> bool:
    """A Python int or bool the analysis knows (bools make bool tensors: not float either)."""
    return value.kind is Kind.SCALAR and type(value.const) in (int, bool)


def _integer_data(value: Value, depth: int = 4) -> bool:
    """Data of ints only: a known int, or a non-empty list or tuple of such data (nested)."""
    if value.kind in (Kind.TENSOR, Kind.OTHER):  # a tensor, or a numpy array
        return value.integer_dtype
    if _int(value):
        return True
    elements = value.elements
    if depth == 0 or value.kind is not Kind.SEQUENCE or not elements:
        return False
    return all(_integer_data(e, depth - 1) for e in elements)


# Tensor methods whose result has the receiver's dtype whatever their arguments (checked
# against torch 2.13.0): copies, moves between devices without a dtype, and reshapes.
_DTYPE_KEEPING_METHODS = frozenset(
    "detach clone contiguous cpu reshape flatten squeeze unsqueeze t permute transpose "
    "expand expand_as repeat narrow flip".split()
)


# Factories of floating values: torch's default dtype unless given `dtype=` (`normal` and
# the `_like` factories follow their tensor arguments, `full` and `arange` their numbers).
_FLOAT_FACTORIES = frozenset(
    "zeros ones empty rand randn linspace logspace eye tensor as_tensor".split()
)
# The floating dtypes, by every name torch gives them.
_FLOAT_DTYPES = {
    "torch.float32": "torch.float32",
    "torch.float": "torch.float32",
    "torch.float64": "torch.float64",
    "torch.double": "torch.float64",
    "torch.float16": "torch.float16",
    "torch.half": "torch.float16",
    "torch.bfloat16": "torch.bfloat16",
}
# Casts to a floating dtype named by the method.
_FLOAT_CAST_METHODS = {
    "float": "torch.float32",
    "double": "torch.float64",
    "half": "torch.float16",
    "bfloat16": "torch.bfloat16",
}


def factory_float_dtype(
    qualified: str, call: ast.Call, resolve: Callable[[ast.expr], str | None], default: bool
) -> str | None:
    """The floating dtype the torch factory `qualified(...)` certainly makes: its `dtype=`,
    or float32 (`default`: the file cannot change torch's default dtype) for a factory of
    floating values (`torch.tensor` only of float literals); None when not certain."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        kw.arg is None for kw in call.keywords
    ):
        return None
    dtype = keyword_value(call, "dtype")
    if dtype is not None:
        return _FLOAT_DTYPES.get(resolve(dtype) or "")
    name = qualified.removeprefix("torch.")
    if not default or name not in _FLOAT_FACTORIES:
        return None
    if name in ("tensor", "as_tensor"):
        return "torch.float32" if call.args and _float_literals(call.args[0]) else None
    return "torch.float32"


def _float_literals(node: ast.expr, depth: int = 4) -> bool:
    """A float literal, or a non-empty list or tuple of them (nested)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    if isinstance(node, ast.Constant):
        return type(node.value) is float
    if depth == 0 or not isinstance(node, ast.List | ast.Tuple) or not node.elts:
        return False
    return all(_float_literals(e, depth - 1) for e in node.elts)


def cast_float_dtype(
    name: str, call: ast.Call, resolve: Callable[[ast.expr], str | None]
) -> str | None:
    """The floating dtype the tensor method `name(...)` casts to, when it only casts
    (`x.float()`, `x.to(torch.float64)`, `x.type(dtype=torch.half)`); None otherwise (a
    device move may copy whatever the dtype)."""
    if name in _FLOAT_CAST_METHODS:
        return None if call.args or call.keywords else _FLOAT_CAST_METHODS[name]
    if name not in api.DTYPE_CASTS:
        return None
    given = [*call.args, *(kw.value for kw in call.keywords if kw.arg == "dtype")]
    if len(given) != 1 or len(call.args) + len(call.keywords) != 1:
        return None
    if isinstance(given[0], ast.Starred):
        return None
    return _FLOAT_DTYPES.get(resolve(given[0]) or "")


def kept_float(name: str, call: ast.Call, receiver: Value, result: Value) -> Value:
    """`result` of the tensor method `receiver.name(...)`, with the receiver's floating dtype
    when the method certainly keeps it (`w.detach().clone()`)."""
    dtype = receiver.float_dtype
    if dtype is None or result.kind is not Kind.TENSOR or result.float_dtype is not None:
        return result
    if name not in _DTYPE_KEEPING_METHODS or any(k.arg == "dtype" for k in call.keywords):
        return result
    return evolve(result, float_dtype=dtype)


def certainly_integer(value: Value, expr: ast.expr) -> bool:
    """True when `value`, what `expr` evaluates to, is certainly a tensor of an integer or
    bool dtype: a tensor of the `integer_dtype` fact, a name bound straight from an integer
    result (`Value.integer_valued`), or `expr` being that very integer op (`ids.long()`,
    `(x > 0)`, `logits.argmax(1)`: a non-differentiable op's result, which is integer or
    bool, see `torch_api.NON_DIFFERENTIABLE_METHODS`)."""
    if value.kind is not Kind.TENSOR:
        return False
    if value.integer_valued:
        return True
    loss = value.loss
    return loss is not None and loss.kind is LossKind.NON_DIFFERENTIABLE and loss.node is expr


# Python operators whose result is integral when every operand is (checked with torch
# 2.13.0: an int64 tensor `+ - * // % & | ^ << >>` an int64 or bool tensor or a Python int,
# and `-t`, `+t`, `~t` of one, are int64, of bool tensors bool). True division `/` and `**`
# are not here: `/` makes floats, and `**` of a negative int raises.
_INTEGRAL_OPERATORS = (
    ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.BitAnd, ast.BitOr, ast.BitXor,
    ast.LShift, ast.RShift, ast.USub, ast.UAdd, ast.Invert,
)  # fmt: skip


def integral_arithmetic(op: ast.operator | ast.unaryop | None, operands: list[Value]) -> bool:
    """True when the Python operator `op` applied to `operands` certainly gives a tensor of
    an integer or bool dtype: at least one operand is a tensor, every tensor operand is
    certainly of an integer or bool dtype (`integer_dtype`), and every other one is a
    Python int or bool literal (`torch.arange(n)[None] - torch.arange(n)[:, None]`,
    `ids + 1`). A float anywhere (`ids * 0.5`), an operand not known, or `/` gives no
    such certainty."""
    if not isinstance(op, _INTEGRAL_OPERATORS) or not operands:
        return False
    tensors = [v for v in operands if v.kind is Kind.TENSOR]
    if not tensors or not all(v.integer_dtype for v in tensors):
        return False
    return all(
        v.kind is Kind.TENSOR or (v.kind is Kind.SCALAR and isinstance(v.const, int))
        for v in operands
    )


def kept_by_indexing(base: Value, selected: Value) -> Value:
    """`selected`, what indexing the tensor `base` gives (`ids[None]`, `ids[mask]`,
    `ids[idx]`), with `base`'s integer (and index) dtype: indexing only picks values, it
    never changes their dtype."""
    if not base.integer_dtype or selected.kind is not Kind.TENSOR or selected.integer_dtype:
        return selected
    return evolve(selected, integer_dtype=True, index_dtype=base.index_dtype)


def kept_integer(name: str, call: ast.Call, receiver: Value, result: Value) -> Value:
    """`result` of the tensor method `receiver.name(...)`, with the receiver's integer (and
    index) dtype when the method certainly keeps it (`ids.detach().clone()`, `ids.view(-1)`)."""
    if not receiver.integer_dtype or result.kind is not Kind.TENSOR or result.integer_dtype:
        return result
    if name not in _DTYPE_KEEPING_METHODS or any(k.arg == "dtype" for k in call.keywords):
        return result
    return evolve(result, integer_dtype=True, index_dtype=receiver.index_dtype)


def floating_point_test(receiver: Value, expr: ast.expr) -> Value | None:
    """`t.is_floating_point()`: the known False of a tensor certainly of an integer dtype
    (so a guard `x.requires_grad_() if x.is_floating_point() else x` takes its else
    branch), None when not known."""
    if not certainly_integer(receiver, expr):
        return None
    return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR, const=False)


# What reads a tensor's dtype: `x.dtype`, `x.is_floating_point()`, `torch.is_complex(x)`.
_DTYPE_READS = frozenset({"dtype", "is_floating_point", "is_complex"})


def dtype_guarded(
    call: ast.Call, receiver: ast.expr, stmt: ast.stmt, conditions: list[ast.expr]
) -> bool:
    """True when `call`, an operation on `receiver`, only runs under a test that reads the
    receiver's dtype: an enclosing `if` (its test among `conditions`), the branch of a
    conditional expression or a later operand of `and`/`or` in `stmt`
    (`x.requires_grad_() if x.dtype == torch.float32 else x`). Whichever branch it is in,
    the code asked about the dtype first: what it does there is not certain to run on an
    integer tensor."""
    tests = list(conditions)
    for node in ast.walk(stmt):
        if isinstance(node, ast.IfExp) and (_within(call, node.body) or _within(call, node.orelse)):
            tests.append(node.test)
        elif isinstance(node, ast.BoolOp):
            for index, value in enumerate(node.values):
                if _within(call, value):
                    tests.extend(node.values[:index])
    wanted = ast.dump(receiver)
    return any(_reads_dtype(test, wanted) for test in tests)


def _within(node: ast.AST, tree: ast.AST) -> bool:
    return any(inner is node for inner in ast.walk(tree))


def _reads_dtype(test: ast.expr, receiver: str) -> bool:
    """`test` reads the dtype of the expression whose dump is `receiver`."""
    for node in ast.walk(test):
        if isinstance(node, ast.Attribute) and node.attr in _DTYPE_READS:
            if ast.dump(node.value) == receiver:
                return True
        elif (
            isinstance(node, ast.Call)
            and callee_name(node.func) in _DTYPE_READS
            and any(ast.dump(a) == receiver for a in node.args)
        ):
            return True
    return False
