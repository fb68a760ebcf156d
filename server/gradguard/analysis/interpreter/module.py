"""The driver of one file's analysis: scopes, classes, module-level names, and one
summary per function."""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import reduce

from gradguard.analysis import appended_state, libraries
from gradguard.analysis import parameters as params
from gradguard.analysis import torch_api as api
from gradguard.analysis.attribute_freezes import parameter_flag_set
from gradguard.analysis.call_sites import CallerFacts, CallSites, kept_on_self, plain_classes
from gradguard.analysis.constant_dicts import kept_setting
from gradguard.analysis.construction_paths import holds, settled_test, taken_statements
from gradguard.analysis.grad_context import modes_switched_only_in
from gradguard.analysis.graph import SavedNode
from gradguard.analysis.historyless_state import stores_by_methods
from gradguard.analysis.imports import Scope, ScopeNode
from gradguard.analysis.instance_state import Flags, distinct_flags
from gradguard.analysis.interpreter.context_runs import run_in_context
from gradguard.analysis.interpreter.contextual import ContextRun
from gradguard.analysis.interpreter.defaults import default_values
from gradguard.analysis.interpreter.environment import Env, GradMode
from gradguard.analysis.interpreter.expressions import with_field
from gradguard.analysis.interpreter.file_syntax import FileSyntax
from gradguard.analysis.interpreter.methods import class_methods
from gradguard.analysis.interpreter.replay import Journal, OwnEvents, own_events
from gradguard.analysis.interpreter.statements import FunctionInterpreter
from gradguard.analysis.interpreter.summary import (
    FunctionSummary,
    rebound_parameters,
    rebound_state,
)
from gradguard.analysis.interpreter.training_effects import is_optimizer
from gradguard.analysis.kept_state import candidates_of
from gradguard.analysis.leaf_containers import concatenated_parts, grown_or_changed_in
from gradguard.analysis.model import (
    FunctionNode,
    InPlaceOnSaved,
    ModuleAnalysis,
)
from gradguard.analysis.names import (
    dotted,
    kept_parameters,
    local_binding_counts,
    paired,
    parameter_names,
)
from gradguard.analysis.node_cache import cached_by_node, last_calls
from gradguard.analysis.one_sided_layers import one_sided_layers
from gradguard.analysis.placeholders import none_placeholders
from gradguard.analysis.private_lists import list_building, private_names
from gradguard.analysis.project_imports import ProjectImports
from gradguard.analysis.sequential_subclasses import added_layers
from gradguard.analysis.shaped_state import may_reshape_in_place
from gradguard.analysis.values import (
    NONE,
    UNKNOWN,
    ClassInfo,
    Grad,
    Kind,
    ModuleRef,
    Value,
    evolve,
    instance_value,
    join,
    literal,
)
from gradguard.analysis.walk import (
    assignment_targets,
    children,
    enclosing_function,
    module_nodes_of,
    module_parents,
    own_nodes,
    walk,
)


class ModuleInterpreter:
    """Drives the analysis of one module: scopes, classes, module-level names, functions."""

    def __init__(
        self,
        tree: ast.Module,
        analysis: ModuleAnalysis,
        text: str | None = None,
        *,
        call_sites: CallSites | None = None,
        parameter_facts: dict[int, CallerFacts] | None = None,
        imports: ProjectImports | None = None,
        syntax: FileSyntax | None = None,
        journal: Journal | None = None,
        frozen_facts: bool = True,
    ) -> None:
        self.tree = tree
        self.text = text
        # Names imported from other files of the project (None: every import is unknown).
        self.imports = imports
        # Names other files of the project may call with recording off: a function of this
        # file of such a name is not certainly entered with recording on (`grad_off_calls`).
        self.called_off_elsewhere = imports.called_without_grad() if imports else frozenset()
        analysis.called_off_elsewhere = self.called_off_elsewhere
        # Calls of the file's functions seen in this pass, and what earlier passes learnt
        # about parameters from them (see `gradguard.analysis.call_sites`).
        self.call_sites = call_sites if call_sites is not None else CallSites()
        # The calls this pass notes (`call_sites` is another while a function runs in context).
        self.file_call_sites = self.call_sites
        self.parameter_facts = parameter_facts or {}
        self.syntax = syntax if syntax is not None else FileSyntax(tree, text)
        # The steps of this pass, and the previous pass's it may replay (see `replay`).
        self.journal = journal
        self.walrus = self.syntax.walrus
        # `from m import *` binds names the environment never sees.
        self.star_imports = self.syntax.star_imports
        self.functions = self.syntax.functions
        self.declared_global = self.syntax.declared_global
        self.analysis = analysis
        self.scopes = self.syntax.scopes
        self.parent_scope = self.syntax.parent_scope
        self.classes: dict[int, ClassInfo] = {}
        self.summaries: dict[int, FunctionSummary] = {}
        # Views of classes for instances set apart by their flags, and summaries of their
        # methods run on such a view (see `gradguard.analysis.instance_state`).
        self.instance_views: dict[tuple[int, Flags], ClassInfo] = {}
        self.instance_summaries: dict[tuple[int, int, Flags], FunctionSummary] = {}
        self.depth = 0  # how many summaries are being computed inside one another
        self.in_progress: set[int] = set()
        # Results of functions run with one call's arguments (see `result_in_context`).
        self.in_context = False
        self.inference_nested = False  # inside a run started inside a run (`context_runs`)
        self.context_call: ast.Call | None = None  # the call the current run reports under
        self.helper_runs = 0  # runs of helpers reporting under an outer call, so far
        self.context_results: dict[object, ContextRun] = {}
        self._defaults: dict[int, dict[str, Value]] = {}  # see `default_values`
        self.globals: Env = {}
        self.collecting_globals = False
        self._pending_attributes: list[ClassInfo] = []
        # The classes whose attributes are being collected: a summary of one of their
        # methods asked for meanwhile reads attributes not collected yet (see `summary_of`).
        self._collecting: set[int] = set()
        self.freezes_parameters = self.syntax.freezes_parameters
        # Certain freezing facts only where nothing in the file may unfreeze a parameter
        # (and, with `frozen_facts` False, not at all: see `unfreeze_loops`).
        self.frozen_facts = self.syntax.frozen_facts and frozen_facts
        self._class_check: _JournaledClassCheck | None = None
        # Nothing in the file may switch a module out of training mode (`.eval()`,
        # `.train(False)`, `.training = False`): dropout layers certainly run as in training.
        self.always_training = self.syntax.always_training
        # The file defines an `item` function or method, or imports names it cannot see.
        self.defines_item = self.syntax.defines_item

    @property
    def class_check(self) -> _JournaledClassCheck:
        """Which local module classes own every parameter their outputs depend on."""
        if self._class_check is None:
            module_scope = self.scope_of(self.tree)

            def resolve(node: ast.ClassDef, expr: ast.expr) -> str | None:
                return self.scope_of(self.parent_scope.get(id(node), self.tree)).resolve(expr)

            literals = _literal_names(self.tree) - self.declared_global

            def module_name(name: str) -> str:
                if name in literals:
                    # `nc = 3` on one branch, `nc = 1` on another: a constant either way.
                    return "constant"
                if (module_scope.counts or {}).get(name) != 1:
                    return ""
                for stmt in self.tree.body:
                    if isinstance(stmt, ast.Import | ast.ImportFrom) and any(
                        (a.asname or a.name.split(".")[0]) == name for a in stmt.names
                    ):
                        return "import"
                    if isinstance(stmt, ast.ClassDef) and stmt.name == name:
                        return "class"
                value = self.globals.get(name)
                if value is not None and value.kind is Kind.SCALAR:
                    return "constant"
                return ""

            self._class_check = _JournaledClassCheck(
                module_name, resolve, self.class_named, self.journal
            )
        return self._class_check

    def current_class_check(self) -> _JournaledClassCheck | None:
        """The class checker, if one was made since the module-level names were known."""
        return self._class_check

    # -- scopes ------------------------------------------------------------------------------

    def scope_of(self, node: ScopeNode) -> Scope:
        """The name-resolution scope of a module, function or class node."""
        return self.syntax.scope_of(node)

    def default_values(self, node: FunctionNode) -> dict[str, Value]:
        """What each parameter of `node` holds when a call leaves it out, where known (see
        `defaults`); evaluated once per function, as Python does when the `def` runs."""
        owner = self.owner_of(node)
        if owner is not self:
            return owner.default_values(node)
        known = self._defaults.get(id(node))
        if known is None:
            known = self._defaults[id(node)] = default_values(self, node)
        return known

    # -- driver ------------------------------------------------------------------------------

    def run(self) -> None:
        """Analyse module-level names, every function (callees first), then the module
        body: one step each, replayed from the previous pass when it would do the same
        (see `gradguard.analysis.interpreter.replay`)."""
        journal = self.journal
        if journal is None:
            self._constants_step()
            for node in self.syntax.order():
                self.summary(node)
            self._body_step()
            return
        journal.step(self, self._constants_step, first=True)
        for node in self.syntax.order():
            journal.step(self, lambda node=node: self.summary(node))
        journal.step(self, self._body_step)

    def _constants_step(self) -> None:
        self.globals = self._module_constants(self.scope_of(self.tree))

    def _body_step(self) -> None:
        body = FunctionInterpreter(self, self.scope_of(self.tree), None, record=True)
        body.env = dict(self.globals)
        body.run_block(self.tree.body)

    def summarise(self) -> None:
        """Module-level names and every function's summary, without the module body: what
        other files importing this one need (see `gradguard.project`)."""
        self.globals = self._module_constants(self.scope_of(self.tree))
        for node in self.syntax.order():
            self.summary(node)

    def release_after_summary(self) -> None:
        """After `summarise`, for a summary kept for importers: drop what only interpreting
        this file's functions needed. Importers read its globals, function summaries, class
        infos, tree, `analysis` and `class_check` (whose name scopes of the module and its
        classes are kept; any other scope is rebuilt, the same, if ever asked for); no
        function of it is interpreted again, so its text, call sites, per-method caches and
        the scopes of its functions are never read again."""
        self.text = self.syntax.text = None
        self.call_sites = self.file_call_sites = CallSites()
        self.parameter_facts = {}
        self.context_results = {}
        self.syntax.appended_lists.clear()
        kept = {id(self.tree)} | {id(node) for node in self.syntax.parent_scope.values()}
        for key in [key for key in self.scopes if key not in kept]:
            del self.scopes[key]

    def changed_containers(self) -> frozenset[str]:
        """Names and attribute names of containers some code of the file may change (an
        item stored or deleted, `append`, `extend`, `+=`...), whatever the receiver."""
        return frozenset(name for name, _, _ in _container_changes(self.tree))

    def containers_change_by_attribute_only(self) -> bool:
        """Whether every container the file may change is changed through an attribute
        (`self.layers.append(...)`, listed by `changed_containers` by the attribute's name):
        none through a plain name other than a function's private lists (which may alias a
        module container stored elsewhere, `seq.append(...)` of an `nn.Sequential` handed to
        a class) or through an item or a call's result (`seq[1][0] = ...`, which changes the
        container held inside another)."""
        return _attribute_changes_only(self.tree)

    def container_may_change(self, held: ast.expr) -> bool:
        """Whether some code of the file may change the container `held` reads (a name, or
        an attribute on any receiver; anything else may change). A name's container may be
        changed under that name; an attribute's through the attribute or through a name
        that may hold it, never through a function's private list (`private_lists`)."""
        if isinstance(held, ast.Attribute):
            return held.attr in _changed_attribute_containers(self.tree)
        if isinstance(held, ast.Name):
            return held.id in self.changed_containers()
        return True

    def owner_of(self, node: ast.AST) -> ModuleInterpreter:
        """The analysis of the file defining `node`: this one, or another file's."""
        owner = self.imports.owner(node) if self.imports is not None else None
        return owner if owner is not None else self

    def imported(self, stmt: ast.Import | ast.ImportFrom, alias: ast.alias) -> Value:
        """What an import binds: a class, function or object of another project file when
        the project index knows it, else an unknown object."""
        if self.imports is not None:
            known = self.imports.imported(stmt, alias)
            if known is not None:
                return known
        return Value(kind=Kind.OTHER)

    def star_imported(self, stmt: ast.ImportFrom) -> dict[str, Value]:
        """What `from m import *` binds of another project file, when it is the file's only
        star import (with two, which one binds a name is not known); nothing otherwise."""
        if self.imports is None or self.syntax.star_count() != 1:
            return {}
        return self.imports.star(stmt)

    def may_call_backward(self, node: FunctionNode | ast.Module) -> bool:
        """Whether `.backward(` may appear in the node's lines (True without the text)."""
        return self.syntax.may_call_backward(node)

    def _module_constants(self, scope: Scope) -> Env:
        """Module-level names bound exactly once to a class, function, module or constructor
        result; functions of the file may rely on them."""
        counts = {
            name: count
            for name, count in (scope.counts or {}).items()
            if name not in self.declared_global
        }
        self.collecting_globals = True  # function summaries must wait for the globals
        constants = self._collect_constants(scope, counts)
        self.globals = constants
        if any(_may_own_more(value) for value in constants.values()):
            # Whether a class of the file owns its parameters depends on the module-level
            # names it reads (`nz`, `ngf`), unknown during the first round: a second round
            # decides its instances (`netG = Generator()`) with them known.
            self._class_check = None
            constants = self._collect_constants(scope, counts)
            self.globals = constants
        self.collecting_globals = False
        self._class_check = None
        for info in self._pending_attributes:
            self._collect_attributes(info)
        self._pending_attributes.clear()
        return constants

    def _collect_constants(self, scope: Scope, counts: dict[str, int]) -> Env:
        scratch = FunctionInterpreter(self, scope, None, record=False)
        settings = self.syntax.unchanged_dicts()
        for stmt in self.tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if counts.get(stmt.name) == 1:
                    scratch.run_block([stmt])
            elif isinstance(stmt, ast.Import | ast.ImportFrom) and self.imports is not None:
                if all(counts.get(alias.asname or alias.name) == 1 for alias in stmt.names):
                    scratch.run_block([stmt])
                elif isinstance(stmt, ast.ImportFrom) and stmt.names[0].name == "*":
                    starred = self.star_imported(stmt)
                    scratch.run_block([stmt])
                    for name in starred:  # bound by the file itself too: not certain
                        if name in counts and scratch.env is not None:
                            scratch.env.pop(name, None)
            elif (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and counts.get(stmt.targets[0].id) == 1
                and (
                    isinstance(stmt.value, ast.Call | ast.Constant)
                    or stmt.targets[0].id in settings
                    or concatenated_parts(stmt.value) is not None
                )
            ) or _constants_unpacked(stmt, counts):
                scratch.run_block([stmt])
        retouched = _grad_state_changed(self.text)
        return {
            name: value
            for name, value in (scratch.env or {}).items()
            if value.kind in (Kind.MODULE, Kind.CLASS, Kind.FUNCTION, Kind.INSTANCE)
            or (value.kind is Kind.SCALAR and value.loss is not None)
            or isinstance(value.const, bool)
            or is_optimizer(value)
            or (_parameter_leaf(value) and retouched is not None and name not in retouched)
            or (name in settings and value.kind is Kind.MAPPING)
            or (
                value.items is not None
                and _parameter_leaf(value.items)
                and retouched is not None
                and not retouched
                and not grown_or_changed_in(ast.walk(self.tree), name)
            )
        }

    def reachable_from_elsewhere(self, node: FunctionNode) -> bool:
        """Whether another file of the project may call `node` with recording off: a
        module-level function or a method of a module-level class, of a name that file calls
        in a grad-off region (`grad_off_calls`)."""
        if node.name not in self.called_off_elsewhere:
            return False
        owner = self.parent_scope.get(id(node))
        if isinstance(owner, ast.ClassDef):
            owner = self.parent_scope.get(id(owner))
        return owner is None or owner is self.tree

    def class_info(self, node: ast.ClassDef) -> ClassInfo:
        """What the file says about a class: is it an nn.Module, which modules it owns."""
        key = id(node)
        known = self.classes.get(key)
        if self.journal is not None:
            self.journal.read_class(key, known)
        if known is not None:
            return known
        scope = self.scope_of(self.parent_scope.get(key, self.tree))
        is_module = lightning = False
        for base in node.bases:
            qualified = scope.resolve(base)
            if qualified in api.MODULE_BASES:
                is_module = True
            elif qualified in libraries.LIGHTNING_MODULES:
                is_module = lightning = True
            elif isinstance(base, ast.Name):
                local = self.class_named(base.id)
                base_info = None
                if local is not None and local is not node:
                    base_info = self.class_info(local)
                elif local is None:
                    base_info = self._imported_class(base.id)
                if base_info is not None:
                    is_module = is_module or base_info.is_module
                    lightning = lightning or base_info.lightning
        settings = (
            node.name in self.syntax.settings_classes() and self.class_named(node.name) is node
        )
        info = ClassInfo(node=node, is_module=is_module, lightning=lightning, settings=settings)
        info.constants.update(self._class_constants(node))
        self.classes[key] = info
        if self.collecting_globals:
            # `self.model = Net()` needs the module-level names being collected right now.
            self._pending_attributes.append(info)
        else:
            self._collect_attributes(info)
        return info

    def _class_constants(self, node: ast.ClassDef) -> dict[str, Value]:
        """`class cfg: coor_bin = 16`: a number, string or flag the class body binds once,
        when no class body of the file binds the name again (a subclass would shadow it)
        and nothing stores that attribute name anywhere (`cfg.coor_bin = ...`, `setattr`)."""
        stores = self.syntax.attribute_stores()
        found: dict[str, Value] = {}
        for stmt in node.body:
            if not (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Constant)
            ):
                continue
            name = stmt.targets[0].id
            if stores.get(name) or self.syntax.class_level_binds().get(name, 0) != 1:
                continue
            found[name] = literal(stmt.value)
        return found

    def sequential_subclass(self, node: ast.ClassDef) -> ModuleRef | None:
        """What an instance of `node` is when it is a class of the module's body built on
        `nn.Sequential` whose `__init__` only adds torch.nn layers by name
        (`sequential_subclasses.added_layers`): an `nn.Sequential` of those fresh layers
        (`children`, in order), whose kind is theirs run in order; None otherwise."""
        if self.parent_scope.get(id(node), self.tree) is not self.tree:
            return None
        module_scope = self.scope_of(self.tree)
        layers = added_layers(node, module_scope.resolve)
        init = class_methods(node).get("__init__")
        if layers is None or not isinstance(init, ast.FunctionDef):
            return None
        scope = self.scope_of(init)
        kinds = []
        held: list[Value] = []
        for layer in layers:
            qualified = scope.resolve(layer.func)
            kind = api.nn_module_kind(qualified) if qualified is not None else None
            if qualified is None or not qualified.startswith("torch.nn.") or kind is None:
                return None
            if kind.output != "tensor":
                return None
            kinds.append(kind)
            held.append(Value(kind=Kind.MODULE, module=ModuleRef(qualified)))
        kind = api.ModuleKind(
            any(k.has_parameters for k in kinds),
            "tensor",
            parameters_known=all(k.parameters_known for k in kinds)
            or any(k.has_parameters and k.parameters_known for k in kinds),
        )
        return ModuleRef(
            "torch.nn.Sequential", kind=kind, self_contained=True, children=tuple(held)
        )

    def _imported_class(self, name: str) -> ClassInfo | None:
        """The class of another project file a module-level `from m import name` binds,
        when nothing else binds the name (see `gradguard.project`)."""
        if self.imports is None or (self.scope_of(self.tree).counts or {}).get(name) != 1:
            return None
        for stmt in self.tree.body:
            if isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    if (alias.asname or alias.name) == name:
                        value = self.imports.imported(stmt, alias)
                        return value.instance_of if value is not None else None
        return None

    def class_named(self, name: str) -> ast.ClassDef | None:
        """The first class statement of the module's body binding `name`, if any."""
        for stmt in self.tree.body:
            if isinstance(stmt, ast.ClassDef) and stmt.name == name:
                return stmt
        return None

    def _collect_attributes(self, info: ClassInfo) -> None:
        """`self.x = nn.Linear(...)` in `__init__`, for attributes assigned nowhere else; and
        plain dicts and lists of modules (`self.models = {"encoder": ...}`, or filled key by
        key in `__init__`) that no code of the file changes afterwards."""
        self._collecting.add(id(info.node))
        try:
            self._collect_attributes_of(info)
            self._collect_computed_in_methods(info)
            self._collect_historyless_state(info)
            self._collect_shaped_state(info)
        finally:
            self._collecting.discard(id(info.node))

    def instance_info(self, info: ClassInfo, call: ast.Call) -> ClassInfo:
        """The class `info` as the instance construction `call` builds sees it: its own
        flags' view when they set it apart (`instance_state`), else `info` itself."""
        init = class_methods(info.node).get("__init__")
        callers = self.parameter_facts.get(id(init)) if init is not None else None
        site = callers.at(call) if callers is not None else None
        if site is None or info.flags or id(info.node) in self._collecting:
            return info
        flags = distinct_flags(site, callers) if callers is not None else ()
        key = (id(info.node), flags)
        known = self.instance_views.get(key)
        if known is not None:
            return known
        view = dataclasses.replace(
            info,
            attributes=dict(info.attributes),
            constants=dict(info.constants),
            computed=dict(info.computed),
            flags=flags,
            general=info,
        )
        self.instance_views[key] = view
        self._collecting.add(id(info.node))
        try:
            with self.calls_unnoted():
                self._collect_attributes_of(view, callers=site)
        finally:
            self._collecting.discard(id(info.node))
        return view

    def instance_summary(self, node: FunctionNode, info: ClassInfo) -> FunctionSummary:
        """`summary_of(node)` for a method of `info` run on an instance set apart by its
        flags (`instance_state`): `self` is that view, nothing is recorded or noted, and
        the in-place changes of what its result saved are its own run's."""
        if not info.flags or not any(stmt is node for stmt in info.node.body):
            return self.summary_of(node)
        key = (id(node), id(info.node), info.flags)
        known = self.instance_summaries.get(key)
        if known is not None:
            return known
        if id(node) in self.in_progress or self.collecting_globals or self.at_depth_limit:
            return self.summary_of(node)
        self.in_progress.add(id(node))
        self.depth += 1
        context, self.in_context = self.in_context, False
        try:
            with self.calls_unnoted():
                interpreter = FunctionInterpreter(self, self.scope_of(node), node, record=False)
                interpreter.self_view = info
                interpreter.kept_changes = []
                if self.journal is not None:
                    self.journal.entered(id(node))
                interpreter.enter_function(node)
                interpreter.run_block(node.body)
            returned = _returned(interpreter)
            changed = changed_in_graph(returned, interpreter, interpreter.kept_changes)
            summary = _summary(node, interpreter, returned, changed)
        finally:
            self.in_progress.discard(id(node))
            self.depth -= 1
            self.in_context = context
        self.instance_summaries[key] = summary
        return summary

    def _collect_attributes_of(self, info: ClassInfo, callers: CallerFacts | None = None) -> None:
        stores = _self_stores(info.node)
        self._collect_set_attributes(info)
        self._collect_built_in_methods(info)
        init = next(
            (s for s in info.node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"),
            None,
        )
        if init is None:
            return
        scratch = FunctionInterpreter(self, self.scope_of(init), init, record=False)
        if self.journal is not None:
            self.journal.entered(id(init))  # what follows reads `__init__`'s caller facts
        if scratch.env is not None and init.args.args:
            # `self` as the methods see it: what `__init__` kept so far is readable
            # (`self.target = copy.deepcopy(self.online)`).
            scratch.env[init.args.args[0].arg] = instance_value(info)
        if callers is None:
            callers = self.parameter_facts.get(id(init))
        if callers is not None and scratch.env is not None:
            # What every construction of the class passes (`Trainer(model, ...)`).
            for name, known in callers.parameters.items():
                if "." not in name and (
                    _kept_whole(known)
                    or _instance(known)
                    or (known.kind is Kind.SCALAR and known.grad is Grad.UNTRACKED)
                    or type(known.const) is str  # a setting (`shortcut="conv"`)
                    or _literal_mapping(known)
                    or _settings_object(known)
                    or _file_function(known)
                ):
                    scratch.env[name] = known
        changed = _containers_changed(self.tree, init)
        containers: dict[str, Value] = {}
        locals_once = local_binding_counts(init)
        freezes = _layer_freezes(info.node) if self.frozen_facts else frozenset()
        building = list_building(init)

        def decide(test: ast.expr) -> bool | None:
            # `if stride != 1:` settled by the constructions' arguments (`construction_paths`).
            if scratch.env is None or not settled_test(test, locals_once, scratch.env.__contains__):
                return None
            return holds(test, lambda expr: scratch.eval(expr).const)

        def dropped(block: list[ast.stmt]) -> None:
            for attr, count in _block_stores(block).items():
                stores[attr] = stores.get(attr, 0) - count

        def whole(stmt: ast.stmt) -> bool:
            return id(stmt) in freezes or id(stmt) in building

        for stmt in taken_statements(init.body, decide, whole, dropped):
            if id(stmt) in freezes:
                # `self.backbone.requires_grad_(False)` (or a loop freezing its parameters)
                # on every way through `__init__`: the layer it kept so far is frozen.
                scratch.stmt = stmt
                scratch.run_stmt(stmt)
                continue
            if id(stmt) in building:
                # `stages = []`, a loop appending blocks to it, for `self.stages =
                # nn.ModuleList(stages)` below (`private_lists.list_building`).
                scratch.run_stmt(stmt)
                continue
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                # A helper building layers (`def block(...): ... return layers`), for
                # `self.model = nn.Sequential(*block(...))` below.
                scratch.run_stmt(stmt)
                continue
            if isinstance(stmt, ast.If):
                # `if downsample: self.shortcut = nn.Conv2d(...)`: a layer kept on one
                # branch only (`one_sided_layers`).
                for attr, exprs in one_sided_layers(info.node, stmt, stores).items():
                    if self.syntax.foreign_attribute_stores().get(attr):
                        continue
                    value = reduce(join, [scratch.eval(expr) for expr in exprs])
                    if value.kind is Kind.MODULE:
                        info.attributes[attr] = value
                continue
            buffer = _registered_buffer(stmt.value) if isinstance(stmt, ast.Expr) else None
            if buffer is not None and stores.get(buffer[0]) == 1:
                # A buffer without history: a module cast (`.to(device)`) replaces it by a
                # copy that has none either. An inference tensor stays one only where
                # nothing may replace it by a copy (`may_copy_buffers`) or by a store from
                # outside the class (a rotary cos/sin table built under inference_mode).
                value = scratch.eval(buffer[1])
                untracked = value.kind is Kind.TENSOR and value.grad is Grad.UNTRACKED
                if untracked and (not value.inference or self._inference_buffer_kept(buffer[0])):
                    info.attributes[buffer[0]] = value
                continue
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                continue
            target = stmt.targets[0]
            if (
                isinstance(target, ast.Name)
                and (
                    isinstance(stmt.value, ast.List | ast.Tuple) or locals_once.get(target.id) == 1
                )
            ) or _unpacked_once(target, locals_once):
                # `layers = [nn.Linear(...), ...]`, for `nn.Sequential(*layers)` below; a
                # local bound once (`sobel = torch.tensor(...)`, then registered as a buffer;
                # `cos, sin = build_cache(n)`, then kept as `self.cos = cos`): it holds that
                # value wherever `__init__` reads it afterwards.
                scratch.run_stmt(stmt)
                continue
            if (
                isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Attribute)
                and dotted(target.value.value) == "self"
                and target.value.attr in containers
            ):
                # `self.models["encoder"] = Encoder()`, key by key.
                attr = target.value.attr
                item = with_field(containers[attr], target.slice, scratch.eval(stmt.value))
                containers[attr] = item if item is not None else UNKNOWN
                continue
            scratch.stmt = stmt  # what an optimizer's construction names (`optimizes`)
            for attr, expr in _self_pairs(target, stmt.value):
                if stores.get(attr) != 1:
                    continue
                value = scratch.eval(expr)
                if self._kept_plain(init, attr, expr, value):
                    # `self.cfg = cfg` of a settings dict nothing changes, `self.get_reward =
                    # get_reward` of a function of the file.
                    info.attributes[attr] = value
                elif value.kind is Kind.MODULE or (
                    value.kind is Kind.TENSOR
                    and (value.leaf or value.inference)
                    and self._grad_state_kept(attr)
                ):
                    # A module, a leaf, or an inference tensor (`self.features =
                    # self._encode_all(data)` under inference_mode: it stays one), unless
                    # some statement may switch its requires_grad (SAC's `self.log_alpha =
                    # torch.tensor(...)`, then `self.log_alpha.requires_grad = True`).
                    info.attributes[attr] = value
                elif self._kept_computed(attr, value):
                    # `self.weights = torch.randn(n, k, requires_grad=True) / n ** 0.5`: a
                    # tensor with history, every method reads that very tensor, computed
                    # by this assignment when it stores `expr` alone (`_single_store`).
                    origin = stmt if _single_store(stmt, attr) else None
                    info.attributes[attr] = evolve(
                        value, origin=origin, carries=frozenset(), graph=frozenset()
                    )
                elif value.kind in (Kind.MAPPING, Kind.SEQUENCE) and attr not in changed:
                    containers[attr] = value
                elif (
                    (value.kind is Kind.SCALAR and value.grad is Grad.UNTRACKED) or _instance(value)
                ) and not self.syntax.foreign_attribute_stores().get(attr):
                    # `self.smooth = smooth` of a Python number (a default every call
                    # keeps, or what every call passes), or `self.logger = logger` of an
                    # instance of a class of the file, never set from outside a method.
                    info.attributes[attr] = value
                elif value.optimizes is not None:
                    kept = self._kept_optimizer(info.node, init, stores, attr, value)
                    if kept is not None:
                        info.attributes[attr] = kept
        for attr, value in containers.items():
            if _kept_whole(value):
                info.attributes[attr] = value
        if freezes:
            self._keep_freezes(info, scratch.env, stores)

    def _inference_buffer_kept(self, name: str) -> bool:
        """Whether an inference tensor registered as buffer `name` is what every method
        reads: no code of the file may copy buffers, nor store `.name` of an instance."""
        syntax = self.syntax
        return not syntax.may_copy_buffers() and not syntax.foreign_attribute_stores().get(name)

    def _keep_freezes(self, info: ClassInfo, env: Env | None, stores: dict[str, int]) -> None:
        """Layers `__init__` froze whole after storing them (`self.backbone`, see
        `_layer_freezes`), as every other method finds them: frozen, when that store is the
        only one of the attribute, no code outside the class's methods sets it, and nothing
        in the file may unfreeze a parameter (`frozen_facts`)."""
        foreign = self.syntax.foreign_attribute_stores()
        for attr, value in list(info.attributes.items()):
            frozen = env.get(f"self.{attr}") if env is not None else None
            if (
                frozen is not None
                and frozen.frozen is not None
                and value.kind is Kind.MODULE
                and frozen.module is value.module
                and stores.get(attr) == 1
                and not foreign.get(attr)
            ):
                info.attributes[attr] = evolve(value, frozen=frozen.frozen)

    def _kept_computed(self, attr: str, value: Value) -> bool:
        """A tensor with history (not a leaf) that `self.<attr> = ...` in `__init__` stores
        (its only store), when nothing outside a method stores the attribute and no code of
        the file may change its grad state in place (`.requires_grad_()`, `.data = `,
        `.detach_()`): what every method reads is that tensor, with its history. Its graph
        is the construction's business, not the methods'."""
        if (
            value.kind is not Kind.TENSOR
            or value.grad is not Grad.TRACKED
            or value.leaf is not False
        ):
            return False
        if self.syntax.foreign_attribute_stores().get(attr):
            return False
        return self._grad_state_kept(attr)

    def _grad_state_kept(self, attr: str) -> bool:
        """Whether no code of the file may change the grad state of what `self.<attr>`
        holds in place (`.requires_grad = `, `.requires_grad_()`, `.data = `, `.detach_()`)."""
        retouched = _grad_state_changed(self.text)
        return retouched is not None and attr not in retouched and not _names_detach_(self.text)

    def _kept_plain(self, init: FunctionNode, attr: str, expr: ast.expr, value: Value) -> bool:
        """`self.<attr> = expr` in `__init__` (its only store, none from outside a method)
        keeps `value` for every method: a dict of literals that no code of the file may
        change (see `constant_dicts.kept_setting`), a settings object (`self.args = args`
        of the namespace every construction passes, see `_settings_object`), or a function
        of the file (a call of `self.get_reward(...)` runs it)."""
        if self.syntax.foreign_attribute_stores().get(attr):
            return False
        if _file_function(value):
            return any(stmt is value.function for stmt in self.tree.body)
        if _settings_object(value):
            # A namespace `parse_args` built, or a settings instance nothing changes: only
            # an attribute store could change it, and those already leave the attribute
            # they name unknown file-wide (`command_line`, `config_objects`).
            return True
        return _literal_mapping(value) and kept_setting(
            self.tree, self.syntax.unchanged_dicts(), init, attr, expr
        )

    def _kept_optimizer(
        self,
        cls: ast.ClassDef,
        init: FunctionNode,
        stores: dict[str, int],
        attr: str,
        value: Value,
    ) -> Value | None:
        """`self.optimizer = torch.optim.SGD(model.parameters())` in `__init__`, as the other
        methods see it: the optimizer of the module `self.<m>` holds, when `__init__` makes
        the only store of both attributes (`self.model = model` for the parameter `model`,
        never re-bound), nothing outside the class sets either, and nothing in the file may
        add parameters to an optimizer (`add_param_group`). None otherwise."""
        built = value.optimizes
        if built is None or self.syntax.mentions_attribute("add_param_group"):
            return None
        foreign = self.syntax.foreign_attribute_stores()
        if foreign.get(attr):
            return None
        if built.key == "self":
            # `torch.optim.Adam(self.parameters())`: the object's own parameters (a module
            # class of the file); read through an instance, the key becomes the instance's.
            if "self" not in kept_parameters(init) or built.others:
                return None
            return value
        key = self._kept_module_key(init, built.key)
        if key is None:
            return None
        module_attr = key[5:].split(".")[0]
        if stores.get(module_attr) != 1 and not _rebuilt_elsewhere(cls, module_attr):
            return None
        # Its further modules must stay what `__init__` made them: each stored once.
        others: list[tuple[str, ModuleRef]] = []
        for other, module in built.others:
            kept = self._kept_module_key(init, other)
            if kept is None or stores.get(kept[5:].split(".")[0]) != 1:
                return None
            others.append((kept, module))
        return evolve(value, optimizes=dataclasses.replace(built, key=key, others=tuple(others)))

    def _kept_module_key(self, init: FunctionNode, key: str) -> str | None:
        """`self.<m>`, the attribute through which the other methods reach the module an
        optimizer of `__init__` was built on at `key` (`self.model`, or the parameter
        `model` that `__init__` stores as `self.model`), when nothing outside the class sets
        it; None otherwise."""
        # `model.trunk`: a layer of the module a parameter holds, as `self.model.trunk`
        # (one level; `_bound_or_kept` gave the layer `__init__` of its class stored once).
        base, _, layer = key.partition(".")
        if "." in layer:
            return None
        if base != "self":
            if base not in kept_parameters(init):
                return None
            base = next(
                (
                    f"self.{kept}"
                    for stmt in init.body
                    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                    for kept, expr in _self_pairs(stmt.targets[0], stmt.value)
                    if isinstance(expr, ast.Name) and expr.id == base
                ),
                "",
            )
            key = f"{base}.{layer}" if layer else base
        elif not layer:
            return None
        attrs = key[5:].split(".")
        if not attrs[0] or len(attrs) > 2:
            return None
        if any(self.syntax.foreign_attribute_stores().get(a) for a in attrs):
            return None
        return key

    def _collect_set_attributes(self, info: ClassInfo) -> None:
        """`def add_loss_op(self, loss_op): self.loss_op = loss_op`: a module attribute set
        only by a setter method whose every call the file shows (see
        `gradguard.analysis.call_sites`) holds what those calls pass.

        A method reading `self.loss_op` either raises AttributeError or runs after some call
        of the setter, so the attribute is the join of what the calls passed, provided
        nothing else binds it: one store of `.loss_op` in the whole file (no other
        `model.loss_op = ...`), no class-level default, no `setattr`.
        """
        for method in info.node.body:
            if not isinstance(method, ast.FunctionDef) or method.name == "__init__":
                continue
            for stmt in method.body:
                setter = _parameter_kept_on_self(method, stmt)
                if setter is None or self.syntax.attribute_stores().get(setter[0]) != 1:
                    continue
                attr, parameter = setter
                if self.journal is not None:
                    self.journal.entered(id(method))  # reads the setter's caller facts
                callers = self.parameter_facts.get(id(method))
                known = callers.parameters.get(parameter) if callers is not None else None
                if known is None or known.kind is not Kind.MODULE:
                    continue
                if not _class_level(info.node, attr):
                    info.attributes.setdefault(attr, known)

    def _collect_built_in_methods(self, info: ClassInfo) -> None:
        """`def setup(self): self.model = nn.Linear(1, 1)`: a module built by a statement
        of a method's own body other than `__init__` (a Ray or Lightning `setup()`, a
        `build_model()`), when nothing else in the file stores that attribute (one store on
        any receiver, no class-level default). A method reading it either raises
        AttributeError or runs after the store, so it holds a module of that kind (the
        constructor's arguments aside, which may come from the method's parameters)."""
        for method in info.node.body:
            if not isinstance(method, ast.FunctionDef) or method.name == "__init__":
                continue
            if method.decorator_list or not method.args.args:
                continue
            me = method.args.args[0].arg
            for stmt in method.body:
                if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                    continue
                target = stmt.targets[0]
                if not (isinstance(target, ast.Attribute) and dotted(target.value) == me):
                    continue
                attr = target.attr
                if attr in info.attributes or _class_level(info.node, attr):
                    continue
                if self.syntax.attribute_stores().get(attr) != 1:
                    continue
                if not isinstance(api.uncast(stmt.value), ast.Call):
                    continue
                value = self._scratch_value(info, method, stmt.value)
                if value.kind is Kind.MODULE:
                    info.attributes[attr] = value

    def _collect_computed_in_methods(self, info: ClassInfo) -> None:
        """Tensors with history, not leaves, that one method of a plain class stores on
        `self` and every other method (or code holding an instance: `model.out`) finds
        there: stored by a statement of the own body of a method other than `__init__`,
        the only store of that attribute in the file (`def forward(self, x): ...; self.out
        = self.head(h)`); or by `__init__`, which makes every store of the attribute in the
        file (`self.w = torch.randn(3, requires_grad=True)`, then `self.w = self.w * 0.1`)
        and hands `self` to no call that could read it half-made (see `candidates_of`).

        A reader either raises AttributeError or runs after a run of that method, which
        left a tensor computed there: a non-leaf, as a run of the method with its callers'
        facts finds it, when nothing of the file may change its grad state in place, no
        class-level default exists, and no grad-mode switch of the file lies outside the
        method (a `model(x)` under no_grad would keep a tensor without history).

        Stores of None by the class's methods (`self.last_z = None` in `__init__`) do not
        count against the one store of a method other than `__init__`: a reader then finds
        None or that tensor, a value whose `unless_none` is the tensor."""
        if not self._plain_class(info.node):
            return
        stores = self.syntax.attribute_stores()
        unset = none_placeholders(info.node)
        for method in info.node.body:
            if not isinstance(method, ast.FunctionDef) or not method.args.args:
                continue
            if method.decorator_list or id(method) in self.in_progress:
                continue
            me = method.args.args[0].arg
            wanted = [
                attr
                for attr in candidates_of(method, stores, unset)
                if attr not in info.attributes
                and attr not in info.computed
                and not _class_level(info.node, attr)
                and self._grad_state_kept(attr)
            ]
            if not wanted or self.at_depth_limit:
                continue
            if not modes_switched_only_in(self.tree, method):
                continue
            fresh = wanted if method.name == "__init__" else []
            left = self._state_left_by(method, frozenset(f"{me}.{a}" for a in fresh))
            for attr in wanted:
                value = left.get(attr)
                if (
                    value is not None
                    and value.kind is Kind.TENSOR
                    and value.grad is Grad.TRACKED
                    and value.leaf is False
                ):
                    kept = evolve(value, carries=frozenset(), graph=frozenset())
                    if method.name != "__init__" and attr in unset:
                        kept = Value(unless_none=kept)  # None until the method has run
                    info.computed[attr] = kept

    def _collect_historyless_state(self, info: ClassInfo) -> None:
        """Tensors without history that `self.<attr>` holds in every method of a plain class:
        every store of the attribute name in the file is a store of a method of the class
        (`self.<attr> = ...` or `self.register_buffer("<attr>", ...)`: `stores_by_methods`),
        a run of each such method with its callers' facts gives each stored value that
        reaches its store a tensor without history or None, and nothing of the file may
        change it in place or switch its grad state (`_kept_in_place`, `_grad_state_kept`).
        Whichever store ran last, a reader finds one of those values (or raises
        AttributeError); see `gradguard.analysis.historyless_state`."""
        if not self._plain_class(info.node) or self.at_depth_limit:
            return
        stores = self.syntax.attribute_stores()
        wanted: dict[str, list[tuple[FunctionNode, ast.expr]]] = {}
        for attr in _stored_attributes(info.node):
            if (
                attr in info.attributes
                or attr in info.computed
                or _class_level(info.node, attr)
                or not self._grad_state_kept(attr)
                or not self._kept_in_place(attr)
            ):
                continue
            found = stores_by_methods(self.tree, info.node, attr, stores.get(attr, 0))
            if found is not None:
                wanted[attr] = found
        for attr, found in wanted.items():
            kept = self._stored_values(found)
            if kept is None or kept.grad is not Grad.UNTRACKED:
                continue
            # An inference tensor stays one only where nothing may replace it by a copy (a
            # module cast, see `_inference_buffer_kept`); its lack of history holds anyway.
            inference = kept.inference and self._inference_buffer_kept(attr)
            info.attributes[attr] = evolve(
                kept, carries=frozenset(), graph=frozenset(), inference=inference
            )

    def _collect_shaped_state(self, info: ClassInfo) -> None:
        """Tensors of a known shape that `self.<attr>` holds in every method of a plain
        class, whatever their autograd facts: every store of the attribute name in the file
        is a store of a method of the class (`stores_by_methods`), a run of each such method
        with its callers' facts gives each stored value a tensor of a known shape (the join
        of them all), and no code of the file may change a tensor's shape in place
        (`shaped_state.may_reshape_in_place`). What a reader finds is a tensor of that shape,
        its history unknown (or the read raises AttributeError). Each storing method runs
        once for all the attributes it stores."""
        if (
            not self._plain_class(info.node)
            or self.at_depth_limit
            or may_reshape_in_place(self.tree)
        ):
            return
        stores = self.syntax.attribute_stores()
        wanted: dict[str, list[tuple[FunctionNode, ast.expr]]] = {}
        for attr in _stored_attributes(info.node):
            if attr in info.attributes or attr in info.computed or _class_level(info.node, attr):
                continue
            found = stores_by_methods(self.tree, info.node, attr, stores.get(attr, 0))
            if found is not None:
                wanted[attr] = found
        by_method: dict[int, tuple[FunctionNode, list[ast.expr]]] = {}
        for found in wanted.values():
            for method, expr in found:
                by_method.setdefault(id(method), (method, []))[1].append(expr)
        if any(key in self.in_progress for key in by_method):
            return
        seen: dict[int, list[Value]] = {}
        for method, exprs in by_method.values():
            seen.update(self._values_in_run(method, exprs))
        for attr, found in wanted.items():
            if any(not seen.get(id(expr)) for _, expr in found):
                continue  # a store never reached
            values = [value for _, expr in found for value in seen[id(expr)]]
            if any(value.kind is not Kind.TENSOR for value in values):
                continue
            kept = reduce(join, values)
            if kept.shape.known:
                info.attributes[attr] = Value(kind=Kind.TENSOR, shape=kept.shape)

    def _stored_values(self, found: list[tuple[FunctionNode, ast.expr]]) -> Value | None:
        """The join of what each stored expression of `found` evaluates to in a run of its
        method with its callers' facts, when each is a tensor without history or None
        (a `None` literal counts as None also where the run never reaches it); None when
        one is anything else, or never reached."""
        by_method: dict[int, tuple[FunctionNode, list[ast.expr]]] = {}
        for method, expr in found:
            by_method.setdefault(id(method), (method, []))[1].append(expr)
        kept: Value | None = None
        for method, exprs in by_method.values():
            if id(method) in self.in_progress:
                return None
            seen = self._values_in_run(method, exprs)
            for expr in exprs:
                values = seen.get(id(expr), [])
                if not values and isinstance(expr, ast.Constant) and expr.value is None:
                    values = [literal(expr)]
                if not values:
                    return None
                for value in values:
                    if value.kind is not Kind.NONE and not (
                        value.kind is Kind.TENSOR and value.grad is Grad.UNTRACKED
                    ):
                        return None
                    kept = value if kept is None else join(kept, value)
        return kept

    def _values_in_run(self, method: FunctionNode, exprs: list[ast.expr]) -> dict[int, list[Value]]:
        """The values `exprs` (expressions of `method`'s own code) take, by id, in a run of
        `method` with its callers' facts, nothing recorded and no call noted."""
        scratch = _ExpressionRecorder(self, self.scope_of(method), method, record=False)
        scratch.watched = frozenset(id(expr) for expr in exprs)
        scratch.seen = {}
        with self._scratch_run(scratch, method):
            return scratch.seen

    def _kept_in_place(self, attr: str) -> bool:
        """Whether no code of the file may change what `.<attr>` holds in place (an in-place
        op with an operand that has history would give a tensor without history one; see
        `historyless_state.changed_in_place`)."""
        return attr not in self.syntax.changed_in_place()

    def _plain_class(self, node: ast.ClassDef) -> bool:
        """A class of the module's body that only the file's own code calls into
        (`call_sites.plain_classes`): no framework runs its methods in a mode of its own."""
        classes = [stmt for stmt in self.tree.body if isinstance(stmt, ast.ClassDef)]
        return plain_classes(classes).get(node.name) is node

    def _state_left_by(self, method: FunctionNode, unset: frozenset[str]) -> dict[str, Value]:
        """The `self.<attr>` values a run of `method` with its callers' facts leaves on every
        way out of it (`FunctionInterpreter.state_writes`), nothing recorded and no call
        noted. The keys `unset` are never set where the run's environment lacks them (a
        fresh object's attributes in `__init__`): a path binding one keeps its value."""
        scratch = FunctionInterpreter(self, self.scope_of(method), method, record=False)
        scratch.unset_attributes = unset
        with self._scratch_run(scratch, method):
            return scratch.state_writes()

    @contextmanager
    def _scratch_run(self, scratch: FunctionInterpreter, method: FunctionNode) -> Iterator[None]:
        """Run `method` in `scratch` (a run recording nothing) with its callers' facts, no
        call noted; the block reads what the run left while the method still counts as in
        progress."""
        if self.journal is not None:
            self.journal.entered(id(method))  # what follows reads the method's caller facts
        self.in_progress.add(id(method))
        self.depth += 1
        try:
            with self.calls_unnoted():
                scratch.enter_function(method)
                scratch.run_block(method.body)
                yield
        finally:
            self.in_progress.discard(id(method))
            self.depth -= 1

    def _scratch_value(self, info: ClassInfo, method: FunctionNode, expr: ast.expr) -> Value:
        """`expr` of `method` evaluated on its own, `self` bound, nothing recorded and no
        call noted (its arguments are not what the method's own run passes)."""
        scratch = FunctionInterpreter(self, self.scope_of(method), method, record=False)
        if scratch.env is not None and method.args.args:
            scratch.env[method.args.args[0].arg] = instance_value(info)
        with self.calls_unnoted():
            return scratch.eval(expr)

    def appended_items(
        self,
        info: ClassInfo,
        attr: str,
        running: tuple[FunctionNode | None, dict[str, Value], ast.expr] | None = None,
    ) -> Value | None:
        """At most what the list `self.<attr>` of an instance of `info` holds, when the file
        shows every change of it (see `gradguard.analysis.appended_state`); else None.
        `running` is the function being interpreted, what it appended so far and the read:
        an appending method read from itself contributes those appends when all of them
        precede the read (`appended_state.appends_precede`)."""
        if id(info.node) not in self.syntax.appended_lists:
            self.syntax.appended_lists[id(info.node)] = self._find_appended_lists(info.node)
        appenders = self.syntax.appended_lists[id(info.node)].get(attr)
        if appenders is None:
            return None
        items: Value | None = None
        for method in appenders:
            if id(method) in self.in_progress:
                if (
                    running is None
                    or running[0] is not method
                    or not appended_state.appends_precede(method, attr, running[2])
                ):
                    return None
                appended = running[1].get(attr)
            else:
                appended = self.summary_of(method).appended.get(attr)
            if appended is None:
                return None  # not analysed (too deep), or the append was never reached
            fresh = evolve(
                appended.without_carries(),
                graph=frozenset(),
                saved_in=frozenset(),
                items_saved=frozenset(),
            )
            items = fresh if items is None else join(items, fresh)
        return items

    def _find_appended_lists(self, node: ast.ClassDef) -> dict[str, tuple[FunctionNode, ...]]:
        scope = self.scope_of(self.parent_scope.get(id(node), self.tree))
        for base in node.bases:
            if not (
                (isinstance(base, ast.Name) and base.id == "object")
                or scope.resolve(base) in api.MODULE_BASES
            ):
                return {}  # a base class's code may change the list
        return appended_state.appended_lists(self.tree, node, scope.resolve)

    def _changed_in_returned_graph(
        self, node: FunctionNode, interpreter: FunctionInterpreter, returned: Value
    ) -> tuple[InPlaceOnSaved, ...]:
        """In-place changes, inside the function, of tensors saved by graph nodes that what it
        returns certainly runs through, still changed on every way out: any backward through
        the result trips over them."""
        reaching = changed_saving_nodes(returned, interpreter)
        if not reaching:
            return ()
        return tuple(
            change
            for change in self.analysis.inplace_on_saved
            if change.function is node and change.saved_by & reaching
        )

    def summary(self, node: FunctionNode) -> Value:
        """Analyse a function once (recording its facts) and return what it returns."""
        return self.summary_of(node).returned

    def summary_of(self, node: FunctionNode) -> FunctionSummary:
        """What a function returns and how it reads and writes `self` state."""
        key = id(node)
        known = self.summaries.get(key)
        if self.journal is not None:
            self.journal.read_summary(key, known)
        if known is not None:
            return known
        owner = self.owner_of(node)
        if owner is not self and self.imports is not None:
            return self.imports.summary(owner, node)
        if key in self.in_progress or self.collecting_globals:
            return FunctionSummary(UNKNOWN)
        if self.at_depth_limit:
            # Deep chains of helper calls cost time and rarely decide anything: unknown is
            # always a safe answer (not cached: the function may still be analysed itself).
            return FunctionSummary(UNKNOWN)
        self.in_progress.add(key)
        self.depth += 1
        # A summary is the same whoever asks first: one asked for inside a run in context
        # is computed as outside it (its own calls noted, its callees run in context).
        context, self.in_context = self.in_context, False
        context_sites, self.call_sites = self.call_sites, self.file_call_sites
        try:
            interpreter = FunctionInterpreter(self, self.scope_of(node), node, record=True)
            if self.journal is not None:
                self.journal.entered(key)
            interpreter.enter_function(node)
            interpreter.run_block(node.body)
            returned = _returned(interpreter)
            changed = self._changed_in_returned_graph(node, interpreter, returned)
            summary = _summary(node, interpreter, returned, changed)
        finally:
            self.in_progress.discard(key)
            self.depth -= 1
            self.in_context, self.call_sites = context, context_sites
        if not self._collecting or not self._method_of_collecting(node):
            # (A method of a class whose attributes are being collected, analysed for a
            # value `__init__` or a setup method stores, `self.loss = self.crit(...)`, read
            # the attributes collected so far: its summary is computed again once they all
            # are, not kept.)
            self.summaries[key] = summary
        return summary

    def own_events(self, function: FunctionNode) -> OwnEvents:
        """What `function`'s interpretation recorded of its training (`replay.own_events`),
        noted as this step's read of it."""
        found = own_events(self.analysis, function)
        if self.journal is not None:
            self.journal.read_own_events(function, found)
        return found

    def _method_of_collecting(self, node: FunctionNode) -> bool:
        """Whether `node` is a method of a class whose attributes are being collected."""
        return any(
            any(stmt is node for stmt in cls.body)
            for cls in module_nodes_of(self.tree, ast.ClassDef)
            if id(cls) in self._collecting
        )

    @contextmanager
    def calls_unnoted(self) -> Iterator[None]:
        """Interpretation whose calls teach the call-site facts nothing (a scratch
        evaluation, a run in one call's context: what they pass is not what every run of
        the caller passes)."""
        sites, self.call_sites = self.call_sites, CallSites()
        try:
            yield
        finally:
            self.call_sites = sites

    @property
    def at_depth_limit(self) -> bool:
        """Summaries are nested as deep as they may be: more code is not analysed now."""
        return self.depth >= _SUMMARY_DEPTH

    def result_in_context(
        self, node: FunctionNode, call: ast.Call, passed: dict[str, Value], mode: GradMode
    ) -> ContextRun | None:
        """What a run of `node` with the arguments `call` passes, under the caller's grad
        `mode`, finds (see `gradguard.analysis.interpreter.context_runs`)."""
        return run_in_context(self, node, call, passed, mode)

    def result_in_mode(
        self, node: FunctionNode, call: ast.Call, mode: GradMode
    ) -> ContextRun | None:
        """What a run of `node` with its callers' facts under grad `mode` finds: one run per
        function and mode, whichever of its calls asks (see `contextual`)."""
        return run_in_context(self, node, call, {}, mode, shared=True)


def _returned_graph(returned: Value) -> frozenset[SavedNode]:
    """The graph nodes of what a function returns (of any tensor of a returned tuple: the
    changes reaching any of them, see `module_call`)."""
    return returned.graph.union(*(element.graph for element in returned.elements or ()))


def changed_saving_nodes(returned: Value, interpreter: FunctionInterpreter) -> frozenset[SavedNode]:
    """The graph nodes `returned` certainly runs through whose saved tensors the function
    `interpreter` ran changed in place, still changed on every way out."""
    graph = _returned_graph(returned)
    if not graph:
        return frozenset()
    return interpreter.modified_at_exit() & graph


def changed_in_graph(
    returned: Value, interpreter: FunctionInterpreter, changes: Iterable[InPlaceOnSaved]
) -> tuple[InPlaceOnSaved, ...]:
    """Those of `changes` (made by the function `interpreter` ran) whose tensors were saved by
    graph nodes `returned` certainly runs through, still changed on every way out."""
    reaching = changed_saving_nodes(returned, interpreter)
    if not reaching:
        return ()
    return tuple(change for change in changes if change.saved_by & reaching)


class _JournaledClassCheck(params.ClassCheck):
    """`ClassCheck` whose verdicts, read and made, a pass's journal can see: which verdicts
    a check finds already made depends on the order classes were asked about."""

    def __init__(
        self,
        module_names: Callable[[str], str],
        resolve: Callable[[ast.ClassDef, ast.expr], str | None],
        local_class: Callable[[str], ast.ClassDef | None],
        journal: Journal | None,
    ) -> None:
        super().__init__(module_names, resolve, local_class)
        self._journal = journal

    @property
    def verdicts(self) -> dict[int, bool]:
        """The verdicts made so far, by id() of the class node (in the order made)."""
        return self._verdicts

    def self_contained(self, info: ClassInfo) -> bool:
        """See `ClassCheck.self_contained`."""
        if self._journal is not None:
            self._journal.read_verdict(id(info.node), self._verdicts.get(id(info.node)))
        return super().self_contained(info)


# How deep summaries of called functions nest before the answer is simply "unknown".
_SUMMARY_DEPTH = 3


def _parameter_kept_on_self(method: ast.FunctionDef, stmt: ast.stmt) -> tuple[str, str] | None:
    """(attribute, parameter) of `self.attribute = parameter` (`call_sites.kept_on_self`),
    a statement of the method's own body, when the method binds that parameter nowhere
    else."""
    names = parameter_names(method)
    if len(names) < 2 or not kept_on_self(stmt, names[0], set(names[1:])):
        return None
    assert isinstance(stmt, ast.Assign)
    target, value = stmt.targets[0], stmt.value
    assert isinstance(target, ast.Attribute) and isinstance(value, ast.Name)
    if any(isinstance(t, ast.Name) and t.id == value.id for t in assignment_targets(method.body)):
        return None
    return target.attr, value.id


def _class_level(node: ast.ClassDef, attr: str) -> bool:
    """Whether the class body itself binds `attr` (a default the instances read)."""
    return any(isinstance(t, ast.Name) and t.id == attr for t in assignment_targets(node.body))


def _single_store(stmt: ast.Assign, attr: str) -> bool:
    """`self.<attr> = expr` alone: the whole value of `stmt` is what the attribute holds (not
    one part of a tuple unpacked into several attributes)."""
    target = stmt.targets[0]
    return (
        isinstance(target, ast.Attribute) and target.attr == attr and dotted(target.value) == "self"
    )


def _kept_whole(value: Value) -> bool:
    """A module, or a dict or list of modules, of leaf tensors (`{"w1": w1, ...}` of
    hand-made parameters, also a comprehension making them: `[p.detach().requires_grad_()
    for p in ...]`) or of instances of one class of the file (`[User(...) for i in
    range(n)]`), or a loader of batches: what an object keeps of it stays what it was
    given, as long as no code of the file changes the container (see
    `_containers_changed`)."""
    if value.kind is Kind.MODULE:
        return True
    if value.kind not in (Kind.MAPPING, Kind.SEQUENCE):
        return False
    if not value.elements:
        items = value.items
        # (A loader, `DataLoader(...)`: what it hands out is batches, see `data_sources`.)
        return (
            value.kind is Kind.SEQUENCE
            and items is not None
            and (
                _instance(items)
                or items.batch
                or (items.kind is Kind.TENSOR and items.leaf is True)
            )
        )
    return (
        all(e.kind is Kind.MODULE for e in value.elements)
        or all(e.kind is Kind.TENSOR and e.leaf for e in value.elements)
        or all(_instance(e) for e in value.elements)
    )


def _literal_mapping(value: Value) -> bool:
    """A dict of known keys whose every value is a literal number, string or flag."""
    return (
        value.kind is Kind.MAPPING
        and value.elements is not None
        and value.fields is not None
        and all(
            e.grad is Grad.UNTRACKED
            and e.kind in (Kind.SCALAR, Kind.OTHER)
            and type(e.const) in (int, float, str, bool)
            for e in value.elements
        )
    )


def _settings_object(value: Value) -> bool:
    """Settings read by attribute (`args.lr`): the namespace `parse_args()` returns (see
    `command_line`) or a dataclass instance nothing changes (see `config_objects`), each
    of its fields a number, string, flag or None without history, or unknown."""
    return (
        value.kind is Kind.SEQUENCE
        and value.elements is not None
        and value.fields is not None
        and all(
            (e.grad is Grad.UNTRACKED and e.kind in (Kind.SCALAR, Kind.OTHER, Kind.NONE))
            or (e.kind is Kind.UNKNOWN and e.grad is Grad.UNKNOWN)
            for e in value.elements
        )
    )


def _file_function(value: Value) -> bool:
    """A function defined in the file."""
    return value.kind is Kind.FUNCTION and value.function is not None


def _instance(value: Value) -> bool:
    """An instance of a class of the file."""
    return value.kind is Kind.INSTANCE and value.instance_of is not None


def _unpacked_once(target: ast.expr, locals_once: dict[str, int]) -> bool:
    """`a, b = ...` (or `[a, b] = ...`) unpacking into plain names each bound once."""
    return (
        isinstance(target, ast.Tuple | ast.List)
        and bool(target.elts)
        and all(isinstance(e, ast.Name) and locals_once.get(e.id) == 1 for e in target.elts)
    )


def _self_pairs(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    """`self.a = v` as [("a", v)]; `self.a, self.b = v, w` as [("a", v), ("b", w)] (see
    `names.paired`)."""
    return [
        (part.attr, item)
        for part, item in paired(target, value)
        if isinstance(part, ast.Attribute) and dotted(part.value) == "self"
    ]


@cached_by_node
def _layer_freezes(cls: ast.ClassDef) -> frozenset[int]:
    """Statements of the own block of the class's `__init__` that freeze every parameter of
    a layer of `self` (`self.backbone.requires_grad_(False)`, `for p in
    self.backbone.parameters(): p.requires_grad = False`) or one parameter of it
    (`self.tok.weight.requires_grad = False`, which may freeze all it has: see
    `attribute_freezes`), or that call a method of the
    class on `self`, which may (`self._freeze_stages()`: the layers it freezes on every way
    out, `FunctionSummary.frozen_parameters`), and run on every way through it: no
    `return` comes first."""
    found: set[int] = set()
    init = next(
        (s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None
    )
    if init is None:
        return frozenset()
    methods = class_methods(cls)
    me = init.args.args[0].arg if init.args.args else None
    for stmt in init.body:
        if (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and isinstance(stmt.value.func.value, ast.Name)
            and stmt.value.func.value.id == me
            and stmt.value.func.attr in methods
            and stmt.value.func.attr != "__init__"
        ):
            found.add(id(stmt))
        owner = params.frozen_whole(stmt)
        flag = parameter_flag_set(stmt)
        layer = dotted(flag[0]) if flag is not None and flag[2] else None
        if flag is not None and layer is not None and layer.count(".") == 1:
            # `self.tok.weight.requires_grad = False`: one parameter of the layer, which
            # with the others frozen before may be all it has (`attribute_freezes`).
            owner = flag[0]
        key = dotted(owner) if owner is not None else None
        if key is not None and key.startswith("self.") and key.count(".") == 1:
            found.add(id(stmt))
        if any(isinstance(node, ast.Return) for node in walk(stmt)):
            break
    return frozenset(found)


def _rebuilt_elsewhere(cls: ast.ClassDef, attr: str) -> bool:
    """`__init__` stores `self.<attr>` once, and every other store of it is `self.<attr> =
    f(...)` in another method, a new object built by a call (`self.model = build_model()`):
    an optimizer `__init__` builds on it holds that first module's parameters whatever runs
    later (the other stores leave it stale, see `TrainingEffects._replace`)."""
    own = others = 0
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in walk(method):
            if _registered_buffer(node) is not None:
                return False
            targets = _stores_into(node, attr)
            if not targets:
                continue
            if method.name == "__init__":
                own += len(targets)
            elif not (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.value, ast.Call)
            ):
                return False
            else:
                others += 1
    return own == 1 and others > 0


def _stores_into(node: ast.AST, attr: str) -> list[ast.AST]:
    """The targets of an assignment statement that store `self.<attr>`."""
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets = [e for t in node.targets for e in ast.walk(t)]
    elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
        targets = list(ast.walk(node.target))
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        targets = list(ast.walk(node.optional_vars))
    elif isinstance(node, ast.NamedExpr):
        targets = [node.target]
    return [
        t
        for t in targets
        if isinstance(t, ast.Attribute) and t.attr == attr and dotted(t.value) == "self"
    ]


def _self_stores(node: ast.ClassDef) -> dict[str, int]:
    """How many assignments to each `self.<attr>` the methods of a class hold."""
    stores: dict[str, int] = {}
    for method in node.body:
        if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
            for attr, count in _block_stores(method.body).items():
                stores[attr] = stores.get(attr, 0) + count
    return stores


def _block_stores(body: list[ast.stmt]) -> dict[str, int]:
    """How many assignments to each `self.<attr>` (and `self.register_buffer` calls) a
    block holds, nested blocks included."""
    stores: dict[str, int] = {}
    for target in assignment_targets(body):
        if isinstance(target, ast.Attribute) and dotted(target.value) == "self":
            stores[target.attr] = stores.get(target.attr, 0) + 1
    for stmt in body:
        for inner in walk(stmt):
            name = _registered_buffer(inner)
            if name is not None:
                stores[name[0]] = stores.get(name[0], 0) + 1
    return stores


class _ExpressionRecorder(FunctionInterpreter):
    """A scratch run of a function that notes the values of chosen expressions of its own
    code each time it evaluates them (`watched`, by id)."""

    watched: frozenset[int] = frozenset()
    seen: dict[int, list[Value]]

    def eval(self, expr: ast.expr) -> Value:
        """The value of `expr`, noted in `seen` (by the expression's id) when watched."""
        value = super().eval(expr)
        if id(expr) in self.watched:
            self.seen.setdefault(id(expr), []).append(value)
        return value


def _stored_attributes(cls: ast.ClassDef) -> list[str]:
    """The attributes the methods of `cls` store into their first parameter by name, or
    register as buffers, in order of first store."""
    found: dict[str, None] = {}
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef) or not method.args.args:
            continue
        me = method.args.args[0].arg
        for node in own_nodes(method.body):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Attribute) and dotted(target.value) == me:
                    found[target.attr] = None
            elif isinstance(node, ast.Call):
                buffer = _registered_buffer(node)
                if buffer is not None and dotted(node.func) == f"{me}.register_buffer":
                    found[buffer[0]] = None
    return list(found)


def _registered_buffer(node: ast.AST) -> tuple[str, ast.expr] | None:
    """`self.register_buffer("weights", value, ...)`: the buffer's name and value (torch
    stores that very tensor as `self.weights`)."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "register_buffer"
        and dotted(node.func.value) == "self"
        and len(node.args) >= 2
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and not any(isinstance(a, ast.Starred) for a in node.args)
    ):
        return None
    return node.args[0].value, node.args[1]


def _parameter_leaf(value: Value) -> bool:
    """A leaf tensor that requires grad (`w = torch.randn(3, requires_grad=True)`)."""
    return value.kind is Kind.TENSOR and value.leaf is True and value.grad is Grad.TRACKED


# `w.requires_grad = ...`, `w.requires_grad_(...)`, `w.data = ...`: what makes a module-level
# leaf's facts uncertain inside functions.
# (A pattern starting with a literal: one starting with `\w+` makes `re` try every offset.)
_GRAD_STATE_CHANGE = re.compile(r"\.\s*(?:requires_grad\s*=[^=]|requires_grad_\s*\(|data\s*=[^=])")


_NAME_BEFORE = re.compile(r"(\w+)\s*$")


def _grad_state_changed(text: str | None) -> frozenset[str] | None:
    """Names whose requires_grad or data some statement of the file may change (None: no
    text to tell). Kept for the last two texts (an edit compares the old text's answer
    with the new one's, and the old one was the new one of the edit before)."""
    return None if text is None else _grad_state_names(text)


def _names_detach_(text: str | None) -> bool:
    """Whether the text names `detach_` anywhere (comments too): an in-place detach may
    change the grad state of whatever it is called on."""
    return text is not None and _mentions_detach_(text)


@last_calls(2)
def _mentions_detach_(text: str) -> bool:
    """Kept for the last two texts, as `_grad_state_names` is (a scan of a whole file)."""
    return "detach_" in text


@last_calls(2)
def _grad_state_names(text: str) -> frozenset[str]:
    names: set[str] = set()
    for match in _GRAD_STATE_CHANGE.finditer(text):
        before = _NAME_BEFORE.search(text, max(0, match.start() - 80), match.start())
        if before is not None:
            names.add(before.group(1))
    return frozenset(names)


# Methods of dicts and lists that change their contents.
_CONTAINER_MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault"}
    | {"__setitem__", "__delitem__", "reverse", "sort"}
    # torch.nn containers: a module added under a new name runs last in an nn.Sequential.
    | {"add_module", "register_module"}
)


def _containers_changed(tree: ast.Module, init: FunctionNode) -> frozenset[str]:
    """Attribute names whose container may be changed after `__init__`: an item stored,
    deleted or changed through a method (`x.models["a"] = ...`, `x.layers.append(...)`)
    anywhere in the file, on any receiver (the receiver's type is not known everywhere),
    but the key-by-key filling by statements of `__init__` itself."""
    filling = {
        id(stmt.targets[0])
        for stmt in init.body
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
    }
    changed = {
        attr
        for attr, node, attribute in _container_changes(tree)
        if attribute and id(node) not in filling
    }
    # `self.blocks = blocks`, then `blocks[0] = ...`: the attribute holds the list changed.
    return frozenset(changed | _aliases_changed(tree))


@cached_by_node
def _container_changes(tree: ast.Module) -> tuple[tuple[str, ast.AST, bool], ...]:
    """Every place the file may change a container held in an attribute or a name, by that
    name and whether it is an attribute's (a keyed store by a string constant on an
    attribute is listed with its Subscript node)."""
    changes: list[tuple[str, ast.AST, bool]] = []
    for node in module_nodes_of(tree, ast.Subscript, ast.AugAssign, ast.Call):
        held = _changed_holder(node)
        where: ast.AST = tree
        if (
            type(node) is ast.Subscript
            and type(node.ctx) is ast.Store
            and type(held) is ast.Attribute
            and _constant_key(node)
        ):
            where = node
        if type(held) is ast.Attribute:
            changes.append((held.attr, where, True))
        elif type(held) is ast.Name:
            changes.append((held.id, where, False))
    return tuple(changes)


def _changed_holder(node: ast.AST) -> ast.expr | None:
    """The expression holding the container `node` may change: the base of an item stored
    or deleted, the target of `+=`, the receiver of a mutating method; None when `node`
    changes no container."""
    # A node's kind is its exact type in a parsed tree; a context not Load is Store or Del.
    if type(node) is ast.Subscript:
        return None if type(node.ctx) is ast.Load else node.value
    if type(node) is ast.AugAssign:
        return node.target
    if type(node) is ast.Call:
        func = node.func
        if type(func) is ast.Attribute and func.attr in _CONTAINER_MUTATORS:
            return func.value
    return None


@cached_by_node
def _attribute_changes_only(tree: ast.Module) -> bool:
    """`ModuleInterpreter.containers_change_by_attribute_only`, computed once per tree."""
    if _shared_changes(tree):
        return False
    for node in module_nodes_of(tree, ast.Subscript, ast.AugAssign, ast.Call):
        held = _changed_holder(node)
        if held is not None and type(held) not in (ast.Name, ast.Attribute):
            return False
    return True


@cached_by_node
def _changed_attribute_containers(tree: ast.Module) -> frozenset[str]:
    """Attribute names whose container some code of the file may change: through the
    attribute (`x.layers.append(...)`, on any receiver), through a plain name that may hold
    the same container, or through a name stored at the attribute (`_aliases_changed`); a
    function's private list (`private_lists`), which never holds an attribute's container,
    is left out."""
    found = {name for name, _ in _shared_changes(tree)} | _aliases_changed(tree)
    for node in module_nodes_of(tree, ast.Subscript, ast.AugAssign, ast.Call):
        held = _changed_holder(node)
        if type(held) is ast.Attribute:
            found.add(held.attr)
    return frozenset(found)


@cached_by_node
def _shared_changes(tree: ast.Module) -> frozenset[tuple[str, int]]:
    """The plain names some code changes a container through, other than a function's
    private lists, each with id() of the function doing it (0 outside functions)."""
    parents = module_parents(tree)
    found: set[tuple[str, int]] = set()
    for node in module_nodes_of(tree, ast.Subscript, ast.AugAssign, ast.Call):
        held = _changed_holder(node)
        if type(held) is ast.Name:
            function = enclosing_function(node, parents)
            if function is None or held.id not in private_names(function):
                found.add((held.id, id(function) if function is not None else 0))
    return frozenset(found)


@cached_by_node
def _aliases_changed(tree: ast.Module) -> frozenset[str]:
    """Attribute names a function stores a plain name at (`self.blocks = blocks`) when the
    same function changes a container through that name (`blocks[0] = ...`): the
    attribute holds the very container changed."""
    shared = _shared_changes(tree)
    if not shared:
        return frozenset()
    parents = module_parents(tree)
    found: set[str] = set()
    for stmt in module_nodes_of(tree, ast.Assign):
        if not isinstance(stmt.value, ast.Name):
            continue
        function = enclosing_function(stmt, parents)
        if (stmt.value.id, id(function) if function is not None else 0) in shared:
            found.update(t.attr for t in stmt.targets if isinstance(t, ast.Attribute))
    return frozenset(found)


def _constant_key(node: ast.Subscript) -> bool:
    return isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)


@cached_by_node
def _literal_names(tree: ast.Module) -> frozenset[str]:
    """Module-level names every binding of which, on any branch, assigns a literal number,
    string, bool or None (`nc = 3` / `nc = 1` in an if/else, `nz, ngf = 100, 64`):
    constants, whichever ran."""
    literal: set[str] = set()
    other: set[str] = set()
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            if not isinstance(node, ast.Lambda):
                other.add(node.name)
            continue
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            bucket = literal if isinstance(node.value, ast.Constant) else other
            bucket.update(t.id for t in node.targets if isinstance(t, ast.Name))
            stack.append(node.value)
            continue
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Tuple)
            and isinstance(node.value, ast.Tuple)
            and len(node.targets[0].elts) == len(node.value.elts)
        ):
            # `nz, ngf, ndf = 100, 64, 64`, element by element.
            for target, value in zip(node.targets[0].elts, node.value.elts, strict=True):
                if isinstance(target, ast.Name):
                    bucket = literal if isinstance(value, ast.Constant) else other
                    bucket.add(target.id)
                else:
                    stack.append(target)
            stack.extend(node.value.elts)
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            other.add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            other.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            other.update(node.names)
        stack.extend(children(node))
    return frozenset(literal - other)


def _may_own_more(value: Value) -> bool:
    """An instance of a class of the file not known to own its parameters (yet)."""
    module = value.module
    return (
        value.kind is Kind.MODULE
        and module is not None
        and module.local is not None
        and not module.self_contained
    )


def _constants_unpacked(stmt: ast.stmt, counts: dict[str, int]) -> bool:
    """`HEIGHT, WIDTH = 32, 32`: names bound once each, to literals written in place."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return False
    target, value = stmt.targets[0], stmt.value
    return (
        isinstance(target, ast.Tuple | ast.List)
        and isinstance(value, ast.Tuple | ast.List)
        and len(target.elts) == len(value.elts)
        and all(isinstance(t, ast.Name) and counts.get(t.id) == 1 for t in target.elts)
        and all(isinstance(v, ast.Constant) for v in value.elts)
    )


def _returned(interpreter: FunctionInterpreter) -> Value:
    """What a function run returns: the join of its `return`s, and None when the end of
    its body is reachable; unknown when no way out returns (it always raises)."""
    returned = join(interpreter.returned, NONE if interpreter.env is not None else None)
    if interpreter.returned is None and interpreter.env is None:
        return UNKNOWN
    return returned


def _summary(
    node: FunctionNode,
    interpreter: FunctionInterpreter,
    returned: Value,
    changed: tuple[InPlaceOnSaved, ...],
) -> FunctionSummary:
    """The summary of one run of `node` (`changed`: the in-place changes of what the
    result saved, as the kind of run reads them)."""
    return FunctionSummary(
        returned,
        interpreter.state_reads,
        interpreter.state_writes(),
        interpreter.input_nodes,
        interpreter.param_tags,
        changed,
        dict(interpreter.self_appends),
        rebound_parameters(returned, interpreter.input_nodes),
        rebound_state(node, interpreter.state_reads, interpreter.heads.values()),
        tuple(interpreter.state_backwards),
        interpreter.freed_state(),
        interpreter.frozen_parameters(),
        dict(interpreter.replaced_attributes),
        interpreter.frees_result(returned),
        tuple(interpreter.param_backwards),
        interpreter.frees_parameters(),
    )
