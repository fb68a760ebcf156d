"""Batches of a training loop: the names a `for` loop binds to the data it draws.

`for x, y in loader:` (also through `enumerate(...)`, `tqdm(...)` or `iter(...)`) over a
value the analysis knows nothing of (a `loader` handed in, `self.train_loader`), whose body
hands one of those names, or a move of it (`x.to(device)`), to a call of something that is
not torch nor a builtin (the model, `model(x)`, `self.net(x)`, or a step function of the
file, `train_step(model, x, y)`, whose parameters then hold batch data when every call
passes it, see `call_sites`), draws batches of data. A `DataLoader` never yields
tensors that require grad, so these names hold data: `Autograd.batch`, which lets a loss
computed from a cut prediction and the batch's targets (`F.cross_entropy(out.detach(), y)`)
be known to have no history. A batch appended to a list (`pending.append(batch)`) reaches
the calls that list is handed to (`train_step(pending)`); the append itself (or a `put` on a
queue) consumes nothing. Everything here is syntactic; the interpreter checks that the
source's value is unknown and marks only names bound to unknown values.

A loader the analysis does know, `DataLoader(...)` (built here, kept on `self`, or passed by
every caller), needs none of this: its items are batches by what it is (see
`data_sources.data_loader`), through `enumerate`, `zip`, `iter`/`next`, `itertools.islice`
and `tqdm` too, whatever the loop's body does with them.

Left out on purpose: `zip(...)` of unknown sources (pairs of outputs and targets are zipped,
not loaded), calls other than the wrappers above (`model.named_parameters()`,
`dict.items()`), and loops whose body hands a drawn name only to torch functions, builtins,
methods of the drawn values or a container's `append`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from gradguard.analysis.names import callee_name, dotted
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.walk import own_nodes

# Calls that hand over the batches of what they wrap, by their last name.
_WRAPPERS = frozenset({"enumerate", "tqdm", "iter"})


def drawn_from(loop: ast.For | ast.AsyncFor) -> tuple[ast.expr, ast.expr] | None:
    """The data source of a loop and the target its batches are bound to (inside
    `enumerate`'s pair), or None when the loop iterates something else."""
    source, target = loop.iter, loop.target
    while isinstance(source, ast.Call) and source.args and callee_name(source.func) in _WRAPPERS:
        if callee_name(source.func) == "enumerate":
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                return None
            target = target.elts[1]
        source = source.args[0]
    if dotted(source) is None:
        return None
    return source, target


def bound_names(target: ast.expr) -> frozenset[str]:
    """The plain names a loop target binds (`x`, `(x, y)`, `(x, (y, z))`)."""
    if isinstance(target, ast.Name):
        return frozenset({target.id})
    if isinstance(target, ast.Tuple | ast.List):
        return frozenset().union(*(bound_names(e) for e in target.elts))
    return frozenset()


def feeds_a_call(
    loop: ast.For | ast.AsyncFor, names: frozenset[str], consumer: Callable[[ast.expr], bool]
) -> bool:
    """True when the loop body passes one of `names` (or a method call's result on one,
    `x.to(device)`, or a part of one, `batch[0]`) to a call whose callee `consumer`
    accepts. Names the body binds from the drawn ones (`images, labels = batch[0],
    batch[1]`) count as drawn."""
    names = names | _derived(loop, names)
    for node in _own_assigns_and_calls(loop)[1]:
        if _inserts(node) or not consumer(node.func):
            continue
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if any(_batch_root(a) in names for a in arguments):
            return True
    return False


def _derived(loop: ast.For | ast.AsyncFor, names: frozenset[str]) -> frozenset[str]:
    """Names assigned in the loop body from one of `names` (in order, so chains count), and
    the lists the body appends one of them to (`pending.append(batch)`, then
    `train_step(pending)`): the batches reach a call through the list."""
    derived: set[str] = set()
    for node in _own_assigns_and_calls(loop)[0]:
        sources = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        if any(_batch_root(source) in names | derived for source in sources):
            for target in node.targets:
                derived |= bound_names(target)
    for call in _own_assigns_and_calls(loop)[1]:
        container = _container(call)
        if container is not None and _batch_root(call.args[0]) in names | derived:
            derived.add(container)
    return frozenset(derived)


# Methods that put their one argument into the container they are called on (a list, a
# queue): they hand it to no model, they only keep it.
_INSERTIONS = frozenset({"append", "put"})


def _inserts(call: ast.Call) -> bool:
    """`pending.append(batch)`, `self.queue.put(batch)`: one item put into a container."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in _INSERTIONS
        and len(call.args) == 1
        and not call.keywords
    )


def _container(call: ast.Call) -> str | None:
    """The plain name of the container an insertion puts its item into, if it is one."""
    func = call.func
    if _inserts(call) and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id
    return None


@cached_by_node
def _own_assigns_and_calls(
    loop: ast.For | ast.AsyncFor,
) -> tuple[tuple[ast.Assign, ...], tuple[ast.Call, ...]]:
    """The assignments and the calls of the loop's own body (`own_nodes`), each in source
    order: what `feeds_a_call` reads, again on every pass and every probe of the loop."""
    assigns: list[ast.Assign] = []
    calls: list[ast.Call] = []
    for node in own_nodes(loop.body):
        if isinstance(node, ast.Assign):
            assigns.append(node)
        elif isinstance(node, ast.Call):
            calls.append(node)
    return tuple(assigns), tuple(calls)


def _batch_root(expr: ast.expr) -> str | None:
    """`x` of `x`, `*x`, `x.to(device)`, `x[0]`, `x["ids"].cuda()`."""
    while True:
        if isinstance(expr, ast.Starred):
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
            expr = expr.func.value
        elif isinstance(expr, ast.Subscript):
            expr = expr.value
        else:
            break
    return expr.id if isinstance(expr, ast.Name) else None
