"""The facts every rule reads, computed once per module by `analyse_module`."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gradguard.analysis.events import Events
from gradguard.analysis.graph import SavedNode
from gradguard.analysis.unfreeze_loops import certain_unfreezes
from gradguard.analysis.values import Carry, Grad, Loss, LossKind, Value
from gradguard.analysis.walk import module_nodes

if TYPE_CHECKING:
    from gradguard.analysis.call_sites import CallerFacts, Candidate
    from gradguard.analysis.interpreter.file_syntax import FileSyntax
    from gradguard.analysis.project_imports import ProjectImports

LoopNode = ast.For | ast.AsyncFor | ast.While
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


# `BackwardCall.via` of the backward pass Lightning's Trainer runs on a `training_step`'s loss.
LIGHTNING_BACKWARD = "lightning"


@dataclass(frozen=True, eq=False)
class BackwardCall:
    """One place where autograd is asked to backpropagate from a value.

    `via` is "backward" (`x.backward()`), "torch.autograd.backward", "torch.autograd.grad",
    "<owner>.backward" (`accelerator.backward(loss)`, `fabric.backward(loss)`: `target` is
    the argument) or LIGHTNING_BACKWARD (the Trainer's backward of what a LightningModule's
    `training_step` returns: `call` is a synthetic `target.backward()` at the returned
    expression, `stmt` the `return`).
    `every_iteration` holds the enclosing loops in which this call runs on every iteration
    (no `if`, `except` or inner loop between the loop and the call). `frees_graph` is True
    when the call certainly frees the saved tensors of the graph it runs through (no
    `retain_graph`, `create_graph` or `inputs`). `through_freed` are graph nodes this call
    certainly runs through after an earlier backward freed them, `through_modified` nodes
    whose saved tensors were certainly changed in place before it (see `InPlaceOnSaved`).
    """

    call: ast.Call
    stmt: ast.stmt
    target: ast.expr
    value: Value
    via: str
    loops: tuple[LoopNode, ...]
    every_iteration: frozenset[LoopNode]
    retain_graph: ast.keyword | None
    function: FunctionNode | None
    frees_graph: bool = False
    through_freed: frozenset[SavedNode] = frozenset()
    through_modified: frozenset[SavedNode] = frozenset()


@dataclass(frozen=True, eq=False)
class InPlaceOnSaved:
    """An in-place change of a tensor that graph nodes saved for backward (`y.add_(1)` after
    `y = torch.sigmoid(x)`). `node` is the operation, `target` the changed tensor, `value`
    its value before the change and `saved_by` the nodes that saved it. `function`: the
    function whose analysis recorded it (a call of a function whose result runs through
    the change records it again, in the caller, with the call's node added)."""

    node: ast.AST
    stmt: ast.stmt
    target: ast.expr
    value: Value
    saved_by: frozenset[SavedNode]
    function: FunctionNode | None
    # A call of a function that changes its argument in place (see `changed_arguments`):
    # the node in that function doing it (`node` is then the call).
    inside: ast.AST | None = None


@dataclass(frozen=True, eq=False)
class TorchCall:
    """A call that resolves to a torch API through the file's imports (`torch.tensor`,
    `nn.LSTM`, `F.relu`...), in a function the analysis visited."""

    call: ast.Call
    qualified: str
    stmt: ast.stmt
    function: FunctionNode | None


@dataclass
class ModuleAnalysis:
    """Dataflow facts of one module: backward calls, loop-carried reads, statement parents."""

    tree: ast.Module
    backward_calls: list[BackwardCall] = field(default_factory=list)
    # Names other files of the project may call with recording off (`ProjectImports`): a
    # function of the file of such a name may be entered with recording off.
    called_off_elsewhere: frozenset[str] = frozenset()
    # Backward calls inside a method, as seen from a loop that calls the method on every
    # iteration: the ones run on every call (no carries), and the ones that run through
    # state the previous call left on `self` (their value's carries name that state and the
    # loop). Kept apart from `backward_calls`, which hold each call once.
    backward_in_calls: list[BackwardCall] = field(default_factory=list)
    # Backward calls inside a method, as seen from another method of the same object that
    # calls it (`self.backward_D()` then `self.backward_G()`): their value's graph includes
    # the graph that state on `self` has in the caller, and `through_freed` what of it an
    # earlier call freed (see `TrainingEffects.backward_across_methods`).
    backward_across_methods: list[BackwardCall] = field(default_factory=list)
    # What happened to known values (conversions, in-place changes, optimizer and module
    # calls...), indexed by kind: `events.of(Conversion)` (see `gradguard.analysis.events`).
    events: Events = field(default_factory=Events)
    torch_calls: list[TorchCall] = field(default_factory=list)
    inplace_on_saved: list[InPlaceOnSaved] = field(default_factory=list)
    # Calls of code the analysis cannot see into (unknown callables, helpers): any of them
    # may do anything to what it is given.
    opaque_calls: list[ast.Call] = field(default_factory=list)
    # Calls of a function of this file (not another project file's) the analysis knew as a
    # value (a callback passed in, `hook(model)`), with that function, per interpretation.
    resolved_calls: list[tuple[ast.Call, FunctionNode]] = field(default_factory=list)
    # id() of the opaque calls given a model, an optimizer, a parameter, `self` or a
    # function: the ones that can reach gradients through what they are given.
    opaque_with_training_state: set[int] = field(default_factory=set)
    # Whether each run of `name = value` (one plain name its only target) in the recorded
    # pass bound a value certainly without history, in recording order (see
    # `gradguard.analysis.historyless_names`; a verdict, not the value: kept analyses stay
    # small).
    bound_values: list[tuple[ast.Assign, bool]] = field(default_factory=list)
    # Each run of a loop that unfreezes parameters by name (`unfreeze_loops`) in the
    # recorded pass, with whether it certainly unfreezes none of its module's parameters.
    unfreeze_runs: list[tuple[ast.For | ast.AsyncFor, bool]] = field(default_factory=list)
    # For each loop-carried value, the expressions that read it from the previous iteration.
    carry_reads: dict[Carry, list[ast.expr]] = field(default_factory=dict)
    # Statement -> the list of statements it belongs to, and the node owning that list.
    _blocks: dict[int, tuple[ast.AST, list[ast.stmt]]] = field(default_factory=dict)

    def backpropagated_without_history(self, kind: LossKind) -> Iterator[tuple[BackwardCall, Loss]]:
        """Backward calls on values that certainly have no history, lost by `kind`: one per
        place where the history was lost (its first backward call)."""
        seen: set[int] = set()
        for event in self.backward_calls:
            loss = event.value.loss
            if event.value.grad is not Grad.UNTRACKED or loss is None or loss.kind is not kind:
                continue
            if id(loss.node) not in seen:
                seen.add(id(loss.node))
                yield event, loss

    def resolved_callees(self) -> dict[int, FunctionNode]:
        """id() of each call -> the one function of the file every interpretation of it
        called through a value (`resolved_calls`; calls that reached two are left out)."""
        found: dict[int, FunctionNode] = {}
        ambiguous: set[int] = set()
        for call, function in self.resolved_calls:
            if found.setdefault(id(call), function) is not function:
                ambiguous.add(id(call))
        return {key: function for key, function in found.items() if key not in ambiguous}

    def block_of(self, stmt: ast.stmt) -> tuple[ast.AST, list[ast.stmt]]:
        """The node owning the statement list that contains `stmt`, and that list."""
        if not self._blocks:
            self._index_blocks()
        return self._blocks[id(stmt)]

    def _index_blocks(self) -> None:
        for node in module_nodes(self.tree):
            for name in ("body", "orelse", "finalbody", "handlers"):
                block = getattr(node, name, None)
                if isinstance(block, list):
                    for stmt in block:
                        if isinstance(stmt, ast.stmt):
                            self._blocks[id(stmt)] = (node, block)
            if isinstance(node, ast.match_case):
                for stmt in node.body:
                    self._blocks[id(stmt)] = (node, node.body)

    def statements_after(self, stmt: ast.stmt) -> Iterator[ast.stmt]:
        """The statements following `stmt` in its own block."""
        _, block = self.block_of(stmt)
        index = next(i for i, s in enumerate(block) if s is stmt)
        yield from block[index + 1 :]


def analyse_module(
    tree: ast.Module, text: str | None = None, *, imports: ProjectImports | None = None
) -> ModuleAnalysis:
    """Run the dataflow pass over the module body and every function in it.

    Every function is analysed whatever the enabled rules are: skipping functions whose text
    holds no rule's keyword (as GradGuard once did) silently lost findings that rest on
    facts from elsewhere (a leaf changed in place in `__init__`, a numpy call), and saved
    almost nothing once summaries are computed on demand anyway.

    With `imports`, names imported from other files of the project are known (see
    `gradguard.project`); without, every import is unknown.
    """
    return _analyse(tree, text, imports)[0]


def learn_caller_facts(tree: ast.Module, text: str | None) -> dict[int, CallerFacts]:
    """What every call in the file tells about the parameters and grad mode of its
    functions, by id() of each function (see `gradguard.analysis.call_sites`)."""
    return _analyse(tree, text)[1]


def _analyse(
    tree: ast.Module, text: str | None, imports: ProjectImports | None = None
) -> tuple[ModuleAnalysis, dict[int, CallerFacts]]:
    """Analyse the module until what call sites say about parameters settles.

    Each pass records the arguments of every call of a candidate function; the next pass
    binds them to its parameters. A caller's own parameters may come from its callers, so
    a chain `main -> fit(model) -> train(model)` needs one more pass per link. A pass that
    learns nothing new is the final one: a file whose calls say nothing costs one pass.
    """
    from gradguard.analysis.interpreter.file_syntax import FileSyntax

    syntax = FileSyntax(tree, text)  # shared by the passes: none of it depends on facts
    analysis, facts = _passes(tree, text, imports, syntax)
    if syntax.frozen_facts and not certain_unfreezes(tree, analysis.unfreeze_runs):
        # A loop unfreezing parameters by name may unfreeze some: no frozen facts at all.
        analysis, facts = _passes(tree, text, imports, syntax, frozen_facts=False)
    return analysis, facts


def _passes(
    tree: ast.Module,
    text: str | None,
    imports: ProjectImports | None,
    syntax: FileSyntax,
    *,
    frozen_facts: bool = True,
) -> tuple[ModuleAnalysis, dict[int, CallerFacts]]:
    """The passes of `_analyse`, with or without frozen facts."""
    from gradguard.analysis.call_sites import CallSites, candidates
    from gradguard.analysis.interpreter.module import ModuleInterpreter
    from gradguard.analysis.interpreter.replay import Journal

    facts: dict[int, CallerFacts] = {}
    found: dict[int, Candidate] | None = None
    journal = Journal()
    for attempt in range(_GRAD_MODE_PASSES + 1):
        analysis = ModuleAnalysis(tree)
        journal.watch(analysis)
        sites = CallSites()
        interpreter = ModuleInterpreter(
            tree,
            analysis,
            text,
            call_sites=sites,
            parameter_facts=facts,
            imports=imports,
            syntax=syntax,
            journal=journal,
            frozen_facts=frozen_facts,
        )
        interpreter.run()
        if found is None:
            if not sites.informative():
                journal.close()
                return analysis, facts  # nothing to learn: no survey, no second pass
            found = candidates(tree)
        learnt = sites.facts(found)
        if settled(attempt, facts, learnt):
            journal.close()
            return analysis, facts
        # The next pass replays the steps that would do the same again: every function whose
        # facts are new objects counts as changed (their values are compared by identity in
        # places, so equal-looking facts are not taken for the same).
        journal = Journal(
            journal.steps if REPLAY_STEPS else None, frozenset(facts) | frozenset(learnt)
        )
        facts = learnt
    raise AssertionError("unreachable")  # pragma: no cover


# Whether a call-site pass replays the steps of the previous pass that would do the same
# (off: every pass interprets everything; the tests compare the two).
REPLAY_STEPS = True

# How many passes may learn parameter facts from call sites before the last one.
_CALL_SITE_PASSES = 2

# How many passes may learn grad modes from call sites before the last one: a grad mode
# switched off at the top of a module reaches `main -> fit -> train_epoch -> loss` one link
# per pass (see `settled`).
_GRAD_MODE_PASSES = 6


def settled(attempt: int, facts: dict[int, CallerFacts], learnt: dict[int, CallerFacts]) -> bool:
    """Whether the pass numbered `attempt` (from 0), which ran with `facts` and learnt
    `learnt`, is the last one.

    It is when it learnt nothing new. Past `_CALL_SITE_PASSES`, only a grad mode that
    changed asks for another pass, up to `_GRAD_MODE_PASSES`: grad modes are booleans that
    stop changing once every link of a call chain has learnt its callers' mode, while
    parameter values are rebuilt by each pass and may keep differing without saying more.
    """
    if learnt == facts:
        return True
    if attempt < _CALL_SITE_PASSES:
        return False
    return attempt >= _GRAD_MODE_PASSES or _grad_modes(learnt) == _grad_modes(facts)


def _grad_modes(facts: dict[int, CallerFacts]) -> dict[int, tuple[bool | None, object]]:
    """The grad mode each function's calls run it under (and where it was switched off),
    when not the mode a body starts in without facts (recording on)."""
    return {
        key: (f.grad_enabled, f.grad_off) for key, f in facts.items() if f.grad_enabled is not True
    }
