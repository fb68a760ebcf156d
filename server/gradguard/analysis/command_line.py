"""Settings parsed from the command line: `args = parser.parse_args()`.

What `ArgumentParser.parse_args()` returns is a namespace with one attribute per argument,
each the argument's default or what the command line gave, converted by its `type`. Whatever
the command line holds, an argument whose `type` is absent or a builtin (`int`, `float`,
`str`, `bool`), whose `action` is one of argparse's own and whose `default` and `const` are
literals holds a Python number, string, bool, list of those, or None: never a tensor, never
anything with autograd history. So `args.lr * loss` is as differentiable as `loss`, and
`args.weight * penalty` has no history when `penalty` has none.

Known only when all of this holds for one parser (anything else: unknown):

* it is bound once in its scope, by `name = argparse.ArgumentParser(...)` (other functions
  may bind the same name to anything: `for p in model.parameters()` beside a parser `p`),
  and every read of that binding only asks `name.add_argument(...)` and
  `name.parse_args(...)` or `name.parse_known_args(...)` (which returns the namespace and a
  list of the strings it did not parse), or to print its help or report an error: no
  argument groups, sub-parsers or `set_defaults`, and it is handed to nothing;
* every `add_argument` has literal option strings and literal keywords (a `type` that is a
  builtin the file does not re-bind), and no `*`/`**` unpacking; except that `help=` and
  `metavar=` may be any text, and a `default=` or `const=` that is not a literal
  (`default=os.path.join(root, "ckpt")`) leaves only that argument's attribute unknown;
* the file never calls the builtin `vars(...)` (a parameter `vars` is not it) and never
  mentions `__dict__` (either can set any
  attribute); an attribute the file stores into (`args.lr = ...`) stays unknown, whatever
  the object, except where a method stores into its own instance (`self.lr = args.lr`,
  see `instance_stores`: a namespace `parse_args` builds is no instance of a class of the
  file; one given as `namespace=` may be) and the file never names `setattr` or `delattr`.

Each attribute's kind is certain only when its conversion is: `int`/`float`/`bool` types and
the counting and flag actions give Python numbers (`Kind.SCALAR`); other arguments are
strings, lists or None (`Kind.OTHER`). The namespace is a value whose fields are the
attributes (`Structure.fields`), read by `args.lr`.

Values are known too where no command line can change them, when the parser takes no
arguments or defaults from elsewhere (`ArgumentParser` given no `parents`,
`argument_default`, `prefix_chars`...), the call gives no `namespace=` (whose attributes
would win), and no other argument shares the attribute:

* `parse_args([])` (an empty list or tuple, `args=[]` too) ignores `sys.argv`: every optional
  argument without `nargs` or `required` holds its `default=` literal (a number, string,
  flag or None; a string converted by a `type` other than `str` is not followed), or what
  its action implies without one (None; False for `store_true`, True for `store_false`).
  `parse_args()` and any other list may override every default: those stay unknown;
  `parse_args(argv)` counts as empty when `argv` is a parameter every call of its function
  in the file passes an empty list (or its own such parameter, a few callers up: `main([])`
  calling `get_args(argv)`), where every call is seen (`call_sites.candidates`);
* whatever the command line, `action="store_true"` with `default=True` is True (the flag
  only stores True) and `action="store_false"` with `default=False` is False.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from gradguard.analysis.call_sites import (
    Candidate,
    FunctionNode,
    candidates,
    parameter_defaults,
)
from gradguard.analysis.config_objects import constant_value
from gradguard.analysis.instance_stores import outside_instances, own_instance_stores
from gradguard.analysis.name_flow import NameFlow
from gradguard.analysis.names import binding_counts, may_read_builtin, parameter_names
from gradguard.analysis.threads import as_call_of
from gradguard.analysis.values import UNKNOWN, Grad, Kind, Loss, LossKind, Value, evolve
from gradguard.analysis.walk import (
    enclosing_function,
    module_nodes,
    module_nodes_of,
    module_parents,
)

_NUMBER_TYPES = frozenset({"int", "float", "bool"})
_TYPES = _NUMBER_TYPES | {"str"}
_NUMBER_ACTIONS = frozenset({"store_true", "store_false", "count"})
_ACTIONS = _NUMBER_ACTIONS | {"store", "store_const", "append", "append_const", "extend"}
# Keywords of `add_argument` whose literal value only shapes what is parsed.
_PLAIN_KEYWORDS = frozenset({"help", "metavar", "required", "choices", "nargs", "const"})
_KNOWN = "parse_known_args"
_SETTERS = frozenset({"setattr", "delattr"})
_VARS = frozenset({"vars"})
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
    # A method's store into its own instance (`self.lr = args.lr`) changes no namespace a
    # parse call builds: only the object a call is given as its namespace may be one.
    fresh = stored
    if not _names_dynamic_setters(tree):
        fresh = outside_instances(stored, own_instance_stores(tree))
    bound = binding_counts(module_nodes(tree))  # builtins re-bound anywhere: not trusted
    flow: NameFlow | None = None  # built only when some parser's name is bound elsewhere too
    found: dict[int, Value] = {}
    for target, build in builders:
        if bound.get(target.id) == 1:  # the file's only binding: every read is the parser
            uses = [
                node
                for node in module_nodes_of(tree, ast.Name)
                if node.id == target.id and isinstance(node.ctx, ast.Load)
            ]
        else:
            flow = flow if flow is not None else NameFlow(tree)
            key = flow.key_of(target)
            if key is None or len(flow.bindings.get(key, ())) != 1:
                continue
            uses = flow.loads.get(key, [])
        parsed = _parsed(uses, module_parents(tree), bound, stored)
        if parsed is None:
            continue
        arguments, parses = parsed
        plain = _plain_parser(build)
        for call in parses:
            line = _command_line(call) if plain else _ANY
            if line == _FRESH and _given_empty_by_callers(call, tree):
                line = _EMPTY
            value = _namespace(arguments, stored if _given_namespace(call) else fresh, line)
            if isinstance(call.func, ast.Attribute) and call.func.attr == _KNOWN:
                leftover = Value(grad=Grad.UNTRACKED, kind=Kind.OTHER)
                value = Value(kind=Kind.SEQUENCE, elements=(value, leftover))
            found[id(call)] = value
    return found


@dataclass(frozen=True)
class _Argument:
    """One `add_argument` call: the attribute it adds, what that holds whatever the command
    line (`value`), what it holds when the command line is empty (`default`, None when not
    certain), and whether no command line can change it (`pinned`: `action="store_true"`
    with `default=True`)."""

    dest: str
    value: Value
    default: Value | None
    pinned: bool


# What a `parse_args` call is given (see `_command_line`).
_ANY, _EMPTY, _FRESH = "any", "empty", "fresh"
# `ArgumentParser` keywords that change neither the arguments nor their defaults (no
# `parents`, `argument_default`, `prefix_chars`, `conflict_handler`...); the first four are
# also its first positional parameters.
_PLAIN_PARSER_KEYWORDS = frozenset(
    "prog usage description epilog formatter_class add_help allow_abbrev exit_on_error".split()
)


def _plain_parser(build: ast.Call) -> bool:
    """The parser adds no arguments nor defaults of its own (see `_PLAIN_PARSER_KEYWORDS`)."""
    return (
        len(build.args) <= 4
        and not any(isinstance(a, ast.Starred) for a in build.args)
        and all(k.arg in _PLAIN_PARSER_KEYWORDS for k in build.keywords)
    )


def _command_line(call: ast.Call) -> str:
    """`_EMPTY` for `parse_args([])` (or `args=[]`, or `()`: the defaults, whatever
    `sys.argv` holds), `_FRESH` for any other call that gives no `namespace` (the
    namespace is a new one), `_ANY` otherwise."""
    given = [*call.args, *(k.value for k in call.keywords)]
    if any(isinstance(a, ast.Starred) for a in call.args) or len(given) > 1:
        return _ANY
    if any(k.arg not in ("args",) for k in call.keywords):
        return _ANY  # a `namespace=` (its own attributes win over the defaults) or `**`
    if given and isinstance(given[0], ast.List | ast.Tuple) and not given[0].elts:
        return _EMPTY
    return _FRESH


# How many callers up an empty command line is followed (`main([])` -> `get_args(argv)`).
_CALLER_DEPTH = 3


def _given_empty_by_callers(call: ast.Call, tree: ast.Module) -> bool:
    """`parse_args(argv)` where `argv` is a parameter of the enclosing function that every
    call of it in the file passes an empty list (literally, or through a parameter of its
    own caller that every call of that passes an empty list, a few callers up)."""
    given = [*call.args, *(k.value for k in call.keywords)]
    if len(given) != 1 or not isinstance(given[0], ast.Name):
        return False
    found = candidates(tree)
    calls = {id(node): node for node in module_nodes_of(tree, ast.Call)}
    return _always_empty(given[0], module_parents(tree), found, calls, _CALLER_DEPTH)


def _always_empty(
    expr: ast.expr,
    parents: dict[int, ast.AST],
    found: dict[int, Candidate],
    calls: dict[int, ast.Call],
    depth: int,
) -> bool:
    """`expr` certainly holds an empty list or tuple: a literal one, or a parameter of a
    plain function (never re-bound in it) whose every call passes one (see `candidates`)."""
    if isinstance(expr, ast.List | ast.Tuple):
        return not expr.elts
    if depth == 0 or not isinstance(expr, ast.Name):
        return False
    function = enclosing_function(expr, parents)
    candidate = found.get(id(function)) if function is not None else None
    if function is None or candidate is None or candidate.is_method:
        return False
    if expr.id not in parameter_names(function) or _rebinds(function, expr.id):
        return False
    for call_id in candidate.calls:
        passed = _passed(function, as_call_of(function.name, calls[call_id]), expr.id)
        if passed is None or not _always_empty(passed, parents, found, calls, depth - 1):
            return False
    return True


def _rebinds(function: FunctionNode, name: str) -> bool:
    """`name` is stored, deleted or declared global/nonlocal anywhere inside `function`."""
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            return True
        if (
            node is not function
            and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and (name in parameter_names(node) or node.name == name)
        ):
            return True  # shadowed in a nested function: not followed
    return False


def _passed(function: FunctionNode, call: ast.Call, name: str) -> ast.expr | None:
    """What `call` of `function` passes for its parameter `name` (its default when left
    out); None when `*`/`**` unpacking hides it or there is neither."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if name in positional and positional.index(name) < len(call.args):
        return call.args[positional.index(name)]
    return parameter_defaults(function).get(name)


def _namespace(arguments: list[_Argument], stored: dict[str, int], line: str) -> Value:
    """The namespace one parse call returns: each attribute's default when the command line
    is empty, pinned attributes' always (not for a dest two arguments share)."""
    shared = {a.dest for a in arguments if sum(b.dest == a.dest for b in arguments) > 1}
    fields: dict[str, Value] = {}
    for argument in arguments:
        value = argument.value
        certain = line == _EMPTY or (line == _FRESH and argument.pinned)
        if certain and argument.default is not None and argument.dest not in shared:
            value = argument.default
        fields[argument.dest] = value if not stored.get(argument.dest) else UNKNOWN
    names = tuple(fields)
    return Value(kind=Kind.SEQUENCE, elements=tuple(fields.values()), fields=names)


def _given_namespace(call: ast.Call) -> bool:
    """`parse_args(argv, ns)` or `parse_args(namespace=ns)` (or any `*`/`**` unpacking,
    which may pass one): the parse fills and returns the object given, which may be an
    instance of a class of the file (its methods' stores into `self` count)."""
    return (
        len(call.args) > 1
        or any(isinstance(a, ast.Starred) for a in call.args)
        or any(k.arg in ("namespace", None) for k in call.keywords)
    )


def _names_dynamic_setters(tree: ast.Module) -> bool:
    """The builtin `setattr` or `delattr` named anywhere: either may set any attribute of
    any object."""
    return may_read_builtin(tree, _SETTERS)


def _rewrites_namespaces(tree: ast.Module) -> bool:
    """The builtin `vars` or an attribute `__dict__` anywhere: either can set any attribute
    of a namespace (a parameter named `vars`, `def forward(self, x, vars=None)`, is not the
    builtin)."""
    return may_read_builtin(tree, _VARS) or any(
        node.attr == "__dict__" for node in module_nodes_of(tree, ast.Attribute)
    )


def _parser_builders(tree: ast.Module) -> list[tuple[ast.Name, ast.Call]]:
    """Each `name = argparse.ArgumentParser(...)` (through the file's module-level imports of
    argparse): the name bound and the call."""
    module_names: set[str] = set()
    class_names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            module_names.update(a.asname or a.name for a in stmt.names if a.name == "argparse")
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "argparse":
            class_names.update(a.asname or a.name for a in stmt.names if a.name == "ArgumentParser")
    found: list[tuple[ast.Name, ast.Call]] = []
    for node in module_nodes_of(tree, ast.Assign):
        if (
            len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and _names_parser_class(node.value.func, module_names, class_names)
        ):
            found.append((node.targets[0], node.value))
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


def _parsed(
    uses: list[ast.Name], parents: dict[int, ast.AST], bound: dict[str, int], stored: dict[str, int]
) -> tuple[list[_Argument], list[ast.Call]] | None:
    """The arguments a parser read at `uses` (every read of its one binding) is given, and
    its parse calls; None when not certain."""
    arguments: list[_Argument] = []
    parses: list[ast.Call] = []
    for call, method in _uses(uses, parents):
        if method is None:
            return None
        if method in ("parse_args", _KNOWN):
            parses.append(call)
        elif method == "add_argument":
            argument = _argument(call, bound)
            if argument is None:
                return None
            arguments.append(argument)
    return (arguments, parses) if parses else None


def _uses(
    uses: list[ast.Name], parents: dict[int, ast.AST]
) -> Iterator[tuple[ast.Call, str | None]]:
    """Every read of the parser: the call of its method, and the method's name when it is
    one of the known ones (None: any other use)."""
    for node in uses:
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


def _argument(call: ast.Call, bound: dict[str, int]) -> _Argument | None:
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
    opaque = False  # a `default=` or `const=` that is not a literal: the attribute is unknown
    for key, value in keywords.items():
        if key == "type":
            if not (isinstance(value, ast.Name) and value.id in _TYPES and not bound.get(value.id)):
                return None
            number = value.id in _NUMBER_TYPES
        elif key == "action":
            if not (isinstance(value, ast.Constant) and value.value in _ACTIONS):
                return None
            number = number or value.value in _NUMBER_ACTIONS
        elif key in ("help", "metavar"):
            continue  # text for the help message only (`help=f"... {DEFAULT}"`)
        elif key in ("default", "const"):
            opaque = opaque or not _literal(value)
        elif key == "dest" or key in _PLAIN_KEYWORDS:
            if not _literal(value):
                return None
        else:
            return None
    dest = _dest([str(o) for o in options], keywords.get("dest"))
    if dest is None:
        return None
    if opaque:
        # `default=os.path.join(...)`, `default=torch.device("cpu")`: whatever the default
        # is, this attribute alone is not known; the parser's others still are.
        return _Argument(dest, UNKNOWN, None, False)
    kind = Kind.SCALAR if number and "nargs" not in keywords else Kind.OTHER
    loss = Loss(LossKind.LITERAL, call, f"the command-line setting `{dest}`")
    setting = Value(grad=Grad.UNTRACKED, kind=kind, loss=loss)
    default = _default([str(o) for o in options], keywords)
    if default is not None and default.kind is not Kind.NONE:
        default = evolve(default, loss=loss)
    action = keywords.get("action")
    pinned = (
        isinstance(action, ast.Constant)
        and action.value in _PINNING
        and default is not None
        and default.const is _PINNING[action.value]
    )
    return _Argument(dest, setting, default, pinned)


# Flag actions whose `default=` is the value they store: whatever the command line holds,
# the attribute keeps it (`store_true` with `default=True` is always True).
_PINNING = {"store_true": True, "store_false": False}
# What an optional argument holds when the command line does not give it and has no
# `default=`, by action (`store` when none is given).
_IMPLIED_DEFAULTS: dict[object, bool | None] = {
    "store": None,
    "store_const": None,
    "count": None,
    "store_true": False,
    "store_false": True,
}


def _default(options: list[str], keywords: dict[str | None, ast.expr]) -> Value | None:
    """What `parse_args([])` certainly leaves in the attribute of an optional argument: its
    `default=` literal (a number, string, flag or None; converted by `type` only when it is a
    string, so a string with a `type` other than `str` is not known), or what its action
    implies without one. None when not certain: a positional or required argument, `nargs`,
    list actions, any other default."""
    if not all(o.startswith("-") for o in options):
        return None
    if "nargs" in keywords or "required" in keywords:
        return None
    action = keywords.get("action")
    kind = action.value if isinstance(action, ast.Constant) else "store" if action is None else ""
    if kind not in _IMPLIED_DEFAULTS:
        return None
    given = keywords.get("default")
    if given is None:
        return constant_value(ast.Constant(_IMPLIED_DEFAULTS[kind]))
    value = constant_value(given)
    converter = keywords.get("type")
    if (
        value is not None
        and isinstance(value.const, str)
        and not (isinstance(converter, ast.Name) and converter.id == "str")
        and converter is not None
    ):
        return None
    return value


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
