"""Settings parsed from the command line: `args = parser.parse_args()`.

What `ArgumentParser.parse_args()` returns is a namespace with one attribute per argument,
each the argument's default or what the command line gave, converted by its `type`. Whatever
the command line holds, an argument whose `type` is absent or a builtin (`int`, `float`,
`str`, `bool`), whose `action` is one of argparse's own and whose `default` and `const` are
literals holds a Python number, string, bool, list of those, or None: never a tensor, never
anything with autograd history. So `args.lr * loss` is as differentiable as `loss`, and
`args.weight * penalty` has no history when `penalty` has none.

Known only when all of this holds for one parser (anything else: unknown):

* it is bound once in the file, by `name = argparse.ArgumentParser(...)`, and is only ever
  asked `name.add_argument(...)` and `name.parse_args(...)` or `name.parse_known_args(...)`
  (which returns the namespace and a list of the strings it did not parse), or to print its
  help or report an error: no argument groups, sub-parsers or `set_defaults`, and it is
  handed to nothing;
* every `add_argument` has literal option strings and literal keywords (a `type` that is a
  builtin the file does not re-bind), and no `*`/`**` unpacking;
* the file never calls `vars(...)` and never mentions `__dict__` (either can set any
  attribute); an attribute the file stores into anywhere (`args.lr = ...`) stays unknown.

Each attribute's kind is certain only when its conversion is: `int`/`float`/`bool` types and
the counting and flag actions give Python numbers (`Kind.SCALAR`); other arguments are
strings, lists or None (`Kind.OTHER`). The namespace is a value whose fields are the
attributes (`Structure.fields`), read by `args.lr`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.names import binding_counts
from gradguard.analysis.values import UNKNOWN, Grad, Kind, Loss, LossKind, Value
from gradguard.analysis.walk import module_nodes, module_nodes_of, module_parents

_NUMBER_TYPES = frozenset({"int", "float", "bool"})
_TYPES = _NUMBER_TYPES | {"str"}
_NUMBER_ACTIONS = frozenset({"store_true", "store_false", "count"})
_ACTIONS = _NUMBER_ACTIONS | {"store", "store_const", "append", "append_const", "extend"}
# Keywords of `add_argument` whose literal value only shapes what is parsed.
_PLAIN_KEYWORDS = frozenset({"help", "metavar", "required", "choices", "nargs", "const"})
_KNOWN = "parse_known_args"
# What may be asked of a parser besides adding arguments and parsing.
_HARMLESS_METHODS = frozenset({"print_help", "print_usage", "format_help", "format_usage", "error"})


def parsed_namespaces(tree: ast.Module, stored: dict[str, int]) -> dict[int, Value]:
    """What every `parse_args(...)` (the namespace) or `parse_known_args(...)` (the namespace
    and the strings left over) call of a known parser returns, by id() of the call (see the
    module docs). `stored` counts the attribute stores of the file
    (`FileSyntax.attribute_stores`)."""
    if _rewrites_namespaces(tree):
        return {}
    builders = _parser_builders(tree)
    if not builders:
        return {}
    bound = binding_counts(module_nodes(tree))
    found: dict[int, Value] = {}
    for name in builders:
        if bound.get(name) != 1:
            continue
        namespace = _namespace(tree, name, bound, stored)
        if namespace is not None:
            value, parses = namespace
            leftover = Value(grad=Grad.UNTRACKED, kind=Kind.OTHER)
            pair = Value(kind=Kind.SEQUENCE, elements=(value, leftover))
            for call in parses:
                known = isinstance(call.func, ast.Attribute) and call.func.attr == _KNOWN
                found[id(call)] = pair if known else value
    return found


def _rewrites_namespaces(tree: ast.Module) -> bool:
    """`vars(...)` or `__dict__` anywhere: either can set any attribute of a namespace."""
    return any(
        (isinstance(node, ast.Name) and node.id == "vars")
        or (isinstance(node, ast.Attribute) and node.attr == "__dict__")
        for node in module_nodes_of(tree, ast.Name, ast.Attribute)
    )


def _parser_builders(tree: ast.Module) -> list[str]:
    """Names bound to `argparse.ArgumentParser(...)` (through the file's module-level
    imports of argparse)."""
    module_names: set[str] = set()
    class_names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            module_names.update(a.asname or a.name for a in stmt.names if a.name == "argparse")
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "argparse":
            class_names.update(a.asname or a.name for a in stmt.names if a.name == "ArgumentParser")
    found: list[str] = []
    for node in module_nodes_of(tree, ast.Assign):
        if (
            len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and _names_parser_class(node.value.func, module_names, class_names)
        ):
            found.append(node.targets[0].id)
    return found


def _names_parser_class(func: ast.expr, modules: set[str], classes: set[str]) -> bool:
    if isinstance(func, ast.Name):
        return func.id in classes
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "ArgumentParser"
        and isinstance(func.value, ast.Name)
        and func.value.id in modules
    )


def _namespace(
    tree: ast.Module, parser: str, bound: dict[str, int], stored: dict[str, int]
) -> tuple[Value, list[ast.Call]] | None:
    """What `parser.parse_args()` returns, and those calls; None when not certain."""
    fields: dict[str, Value] = {}
    parses: list[ast.Call] = []
    for call, method in _uses(tree, parser):
        if method is None:
            return None
        if method in ("parse_args", _KNOWN):
            parses.append(call)
        elif method == "add_argument":
            argument = _argument(call, bound)
            if argument is None:
                return None
            dest, value = argument
            fields[dest] = value if not stored.get(dest) else UNKNOWN
    if not parses:
        return None
    names = tuple(fields)
    namespace = Value(kind=Kind.SEQUENCE, elements=tuple(fields.values()), fields=names)
    return namespace, parses


def _uses(tree: ast.Module, parser: str) -> Iterator[tuple[ast.Call, str | None]]:
    """Every read of `parser`: the call of its method, and the method's name when it is one
    of the known ones (None: any other use)."""
    parents = module_parents(tree)
    for node in module_nodes_of(tree, ast.Name):
        if node.id != parser or not isinstance(node.ctx, ast.Load):
            continue
        attribute = parents.get(id(node))
        call = parents.get(id(attribute)) if attribute is not None else None
        if not (
            isinstance(attribute, ast.Attribute)
            and isinstance(call, ast.Call)
            and call.func is attribute
        ):
            yield ast.Call(func=node, args=[], keywords=[]), None
            continue
        method = attribute.attr
        if method in _HARMLESS_METHODS:
            continue
        known = method in ("add_argument", "parse_args", _KNOWN)
        yield call, method if known else None


def _argument(call: ast.Call, bound: dict[str, int]) -> tuple[str, Value] | None:
    """The attribute an `add_argument` call adds and what it holds; None when unsure."""
    options = [a.value for a in call.args if isinstance(a, ast.Constant)]
    if (
        len(options) != len(call.args)
        or not options
        or not all(isinstance(o, str) for o in options)
    ):
        return None
    keywords = {k.arg: k.value for k in call.keywords}
    if None in keywords:
        return None  # `**kwargs`
    number = False
    for key, value in keywords.items():
        if key == "type":
            if not (isinstance(value, ast.Name) and value.id in _TYPES and not bound.get(value.id)):
                return None
            number = value.id in _NUMBER_TYPES
        elif key == "action":
            if not (isinstance(value, ast.Constant) and value.value in _ACTIONS):
                return None
            number = number or value.value in _NUMBER_ACTIONS
        elif key in ("default", "dest") or key in _PLAIN_KEYWORDS:
            if not _literal(value):
                return None
        else:
            return None
    dest = _dest([str(o) for o in options], keywords.get("dest"))
    if dest is None:
        return None
    kind = Kind.SCALAR if number and "nargs" not in keywords else Kind.OTHER
    loss = Loss(LossKind.LITERAL, call, f"the command-line setting `{dest}`")
    return dest, Value(grad=Grad.UNTRACKED, kind=kind, loss=loss)


def _literal(expr: ast.expr) -> bool:
    """A constant, or a list/tuple of constants (`choices=["a", "b"]`)."""
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.List | ast.Tuple):
        return all(isinstance(e, ast.Constant) for e in expr.elts)
    return isinstance(expr, ast.UnaryOp) and isinstance(expr.operand, ast.Constant)  # `-1`


def _dest(options: list[str], dest: ast.expr | None) -> str | None:
    """The attribute name argparse derives: `dest=`, else the first long option with dashes
    made underscores, else the first short option, else the positional name."""
    if dest is not None:
        return (
            dest.value if isinstance(dest, ast.Constant) and isinstance(dest.value, str) else None
        )
    long = [o for o in options if o.startswith("--")]
    if long:
        return long[0][2:].replace("-", "_")
    short = [o for o in options if o.startswith("-")]
    if short:
        return short[0].lstrip("-").replace("-", "_")
    return options[0].replace("-", "_") if len(options) == 1 else None
