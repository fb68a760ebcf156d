"""Analysis of an edited document that reuses the analysis of its previous text.

The language server analyses a document again after every keystroke, and the common edit
changes a few characters inside one function. `gradguard.lsp.incremental.check` analyses
through `Incremental`, which keeps the last analysis of the documents edited last (`State`):

1. **Comments only** (`_comments_only`): when only comment and blank lines changed, outside
   strings, the tree is the old one as it is; only the facts read off the text
   (`FileSyntax`: `.backward(` lines, mode switches, call order...) are compared, and when
   they are equal the analysis is the last one (`State.analysis`): only the rules run.
2. **Graft instead of re-parse** (`_graft`): when the line count is unchanged and every
   changed line lies inside one function defined at module level or in a class body, only
   that function's lines are parsed (after an `if 1:` header and blank lines, so lines and
   columns come out exact), its header (name, parameters, decorators) must be unchanged,
   and the definition node takes the new fields: it keeps its identity (values, class infos
   and journals name it), every other node too. The tree is changed in place; a state is
   kept only once the rules are done with the tree.
3. **Replay across edits** (`_analyse`): each call-site pass replays the steps of the same
   pass of the previous analysis (`gradguard.analysis.interpreter.replay`) with the edited
   function and the functions it nests counted as changed, and vetoes (`Edit.veto`) the
   steps that read the edited code another way: a cached answer about one of its nodes or
   the walk of the whole module (`node_cache.Watcher` notes them per step), the class info
   of its class when what building it reads of the method changed (`_class_view`), an
   ownership verdict of a class around it. A step that cannot replay the previous
   analysis's step may replay this analysis's pass before (`_CrossEditJournal`): the edited
   function itself, after the first pass. Parameter facts equal to the previous
   analysis's are given as the very same objects (`_reuse`), so their steps replay too.
4. **Check what steps read without a journal entry** (`_validate`), and analyse in full
   when any of it differs: `FileSyntax`'s facts (its whole-file counts compared on the edited
   function's part), every cached answer about the module or a class around the function
   (computed again, or compared on the function's part for sums and unions: `_BY_PARTS`),
   the classes' appended-list scans, the survey of call sites (`_candidates_moved`).
5. **Keep what is still right**: the cached answers about unchanged nodes are carried to
   the next check (`node_cache.tree_scope` with the kept store), and the module's walk is
   patched rather than walked again (`gradguard.analysis.walk_patch`).

Anything else (line count changed, a change outside a function, a header or a nested
definition changed, a segment that does not parse, notebooks, half-typed text needing
recovery, other project facts or settings) takes the full path, which primes the state for
the next edit. Results are the same as a fresh analysis of the same text:
tests/analysis/test_incremental.py compares them after every edit of random edit sequences.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import re
import threading
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gradguard.analysis import appended_state, model, syntax_parts
from gradguard.analysis import walk as walk_module
from gradguard.analysis.appended_state import _empty_list_stores as _list_resets
from gradguard.analysis.call_sites import (
    CallerFacts,
    CallSites,
    Candidate,
    _Survey,
    candidates,
    may_learn,
)
from gradguard.analysis.historyless_state import changed_in_place_part
from gradguard.analysis.interpreter.call_order import names_called
from gradguard.analysis.interpreter.file_syntax import FileSyntax, ScopeIndex, text_may_freeze
from gradguard.analysis.interpreter.module import (
    ModuleInterpreter,
    _grad_state_changed,
    _names_detach_,
)
from gradguard.analysis.interpreter.replay import Journal, Step
from gradguard.analysis.model import FunctionNode, ModuleAnalysis
from gradguard.analysis.names import first_parameter
from gradguard.analysis.node_cache import (
    Stores,
    Watcher,
    answer_in,
    drop_answers,
    last_calls,
    seed,
    unwatched_module_reads,
    watching,
)
from gradguard.analysis.project_imports import ProjectImports
from gradguard.analysis.unfreeze_loops import certain_unfreezes
from gradguard.analysis.walk import (
    assignment_targets,
    module_nodes,
    module_nodes_of,
    own_nodes,
    walk,
)
from gradguard.analysis.walk_patch import patched_index, patched_walk_runs

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# The states kept total at most this many lines, beyond the last edited document's: a state
# weighs about 2 MiB per 1,000 lines (tracemalloc, on the files of the memory benchmark).
STATE_BUDGET_LINES = 6_000


class _Syntax(FileSyntax):
    """`FileSyntax` whose whole-file counts, when a step asks for them, are not noted as
    that step's reads of the module's walk: the next edit compares them itself
    (`_counts_differ`, `_syntax_differs`). Made for an edit confined to one function
    (`edit`), it takes the facts that are unions over the module's statements from the
    last analysis's (`previous`) when the edited function's part of them is unchanged
    (`gradguard.analysis.syntax_parts`). Made for an edit of comments only (`same_tree`:
    the syntax of the last text, of the very same tree), it takes what that one read off
    the tree alone: the scope index, and whether code freezes a parameter."""

    def __init__(
        self,
        tree: ast.Module,
        text: str,
        previous: FileSyntax | None = None,
        edit: syntax_parts.EditedPart | None = None,
        same_tree: FileSyntax | None = None,
    ) -> None:
        self._previous, self._edit = previous, edit
        self._same_tree = same_tree if same_tree is not None and same_tree.tree is tree else None
        super().__init__(tree, text)
        if previous is not None and edit is not None and previous._order is not None:
            self._order = syntax_parts.order(previous._order, edit)
        # A syntax keeps no chain of the ones before it.
        del self._previous, self._edit, self._same_tree

    def _index_scopes(self, tree: ast.Module) -> None:
        same = self._same_tree
        if same is not None:
            self.functions, self.parent_scope = same.functions, same.parent_scope
            self.declared_global = same.declared_global
            return
        if self._previous is not None and self._edit is not None:
            old = self._previous
            index = syntax_parts.scopes(
                ScopeIndex(old.functions, old.parent_scope, old.declared_global), self._edit
            )
            if index is not None:
                self.functions, self.parent_scope = index.functions, index.parent_scope
                self.declared_global = index.declared_global
                return
        super()._index_scopes(tree)

    def _walrus_names(self, tree: ast.Module, text: str | None) -> frozenset[str]:
        if self._previous is not None and self._edit is not None:
            kept = syntax_parts.walrus_names(self._previous.walrus, self._edit)
            if kept is not None:
                return kept
        return super()._walrus_names(tree, text)

    def _tree_freezes(self, tree: ast.Module) -> bool:
        same = self._same_tree
        if same is not None and text_may_freeze(same.text):
            return same.freezes_parameters  # its text let it ask the tree: the tree's answer
        if self._previous is not None and self._edit is not None:
            # The old tree's answer, when its text let it be asked.
            old = (
                self._previous.freezes_parameters if text_may_freeze(self._edit.old_text) else None
            )
            found = syntax_parts.freezes(old, self._edit)
            if found is not None:
                return found
        return super()._tree_freezes(tree)

    def _may_unfreeze(self, tree: ast.Module, text: str | None) -> bool:
        if self._previous is not None and self._edit is not None:
            old = self._previous
            found = syntax_parts.unfreezes(
                not old.frozen_facts if old.freezes_parameters else None, self._edit
            )
            if found is not None:
                return found
        return super()._may_unfreeze(tree, text)

    def class_level_binds(self) -> dict[str, int]:
        with unwatched_module_reads():
            return super().class_level_binds()

    def attribute_stores(self) -> dict[str, int]:
        with unwatched_module_reads():
            return super().attribute_stores()

    def foreign_attribute_stores(self) -> dict[str, int]:
        with unwatched_module_reads():
            return super().foreign_attribute_stores()

    def star_count(self) -> int:
        with unwatched_module_reads():
            return super().star_count()

    def mentions_attribute(self, name: str) -> bool:
        with unwatched_module_reads():  # compared on the edited part (`_attribute_part`)
            return super().mentions_attribute(name)

    def unchanged_dicts(self) -> frozenset[str]:
        with unwatched_module_reads():
            return super().unchanged_dicts()


@dataclass
class Pass:
    """One call-site pass of an analysis: its steps and the parameter facts it ran with."""

    steps: list[Step]
    facts: dict[int, CallerFacts]


@dataclass
class State:
    """What the last analysis of one document leaves for the next edit."""

    text: str
    tree: ast.Module
    syntax: FileSyntax
    passes: list[Pass]
    containers: list[tuple[Callable[[Any], Any], ast.AST, Any]]
    token: object
    # The project files the analysis read facts of (`FileImports.depends`), by content key.
    depends: dict[Any, str]
    # The cached answers of the last check (`node_cache.tree_scope`), for the next one.
    stores: Stores
    # The functions that may learn from call sites (`call_sites.candidates`), if surveyed.
    found: dict[int, Candidate] | None
    # Old nodes the steps' journals still name by id(): kept alive so no id is reused.
    retired: list[ast.AST] = field(default_factory=list)
    checks: int = 0  # how many checks of the document made this state and its forebears
    # The analysis the passes made: the answer again after an edit of comments only.
    analysis: ModuleAnalysis | None = None
    # The lines (1-based, first and last) of each string of the tree spanning several
    # lines, once an edit of comments only asked (`_comments_only`); the tree's, so kept
    # only while the tree is not changed.
    multiline_strings: list[tuple[int, int]] | None = None
    # The passes were made without frozen facts (`unfreeze_loops`).
    without_frozen_facts: bool = False

    @property
    def lines(self) -> int:
        """The document's line count (what the state's size follows)."""
        return self.text.count("\n") + 1


@dataclass
class Graft:
    """An edit confined to one function: a copy of its old definition, and the definition
    itself, which now holds the new code (the node kept its identity)."""

    old: FunctionNode
    new: FunctionNode
    parent: ast.Module | ast.ClassDef
    classes: list[ast.ClassDef]  # the enclosing classes, innermost first


@dataclass
class Edit:
    """What the replay of an edited document must treat as changed."""

    changed: frozenset[int]  # id() of the old function nodes of the edited definition
    old_nodes: frozenset[int]  # id() of every old node of it
    dirty_classes: frozenset[int]  # classes whose info and verdicts steps must not replay
    verdict_classes: frozenset[int]  # classes whose ownership verdicts must be made again
    keys: dict[int, int]  # id() of a new function node -> id() of the old one
    # The tree changed (a graft): a step that read the walk of the whole module read it.
    walks: bool = True
    # Comment or blank lines only changed: the tree is the same, and no step read anything
    # the edit changed (`_syntax_differs` compared what steps read off the text).
    comments_only: bool = False

    def veto(self, step: Step) -> bool:
        """Whether an old step read syntax the edit changed (without entering it)."""
        if step.node_reads and not self.old_nodes.isdisjoint(step.node_reads):
            return True
        if self.walks and step.node_reads and not _WALKS.isdisjoint(step.node_reads):
            return True  # it read the walk of the whole module, edited nodes included
        if self.dirty_classes and not self.dirty_classes.isdisjoint(step.class_reads):
            return True
        return bool(self.verdict_classes) and not self.verdict_classes.isdisjoint(
            step.verdict_reads
        )


@dataclass
class Counters:
    """How the analyses of documents went (for tests and the benchmark)."""

    full: int = 0
    grafted: int = 0
    comments: int = 0  # edits of comment or blank lines only: the same tree
    kept_analyses: int = 0  # edits of comments only answered with the last analysis
    patched_walks: int = 0  # module walks patched instead of walked again
    reused: int = 0  # analyses that replayed the last one across an edit (grafts, comments)
    replayed_steps: int = 0
    run_steps: int = 0
    fallbacks: Counter[str] = field(default_factory=Counter)


class Incremental:
    """Per-document states of the last analysis, and the incremental check using them."""

    def __init__(self, limit: int = 4, budget_lines: int = STATE_BUDGET_LINES) -> None:
        # States are kept for the `limit` documents edited last, from their second check
        # on: a document only opened holds nothing (a state is several times its tree).
        # Older states also go while the kept ones total more than `budget_lines` lines
        # (the last edited document's state is always kept).
        self.limit = limit
        self.budget_lines = budget_lines
        self.states: dict[str, State] = {}
        self._checked: dict[str, None] = {}  # the documents checked once, oldest first
        self.counters = Counters()
        self._lock = threading.Lock()

    def forget(self, key: str) -> None:
        """Drop the state of a document (closed, or its project facts changed)."""
        with self._lock:
            self.states.pop(key, None)
            self._checked.pop(key, None)

    def take(self, key: str) -> State | None:
        """The state of `key`, removed while one analysis uses it (a concurrent analysis of
        the same document then takes the full path)."""
        with self._lock:
            return self.states.pop(key, None)

    def keep(self, key: str, state: State) -> None:
        """Keep the state of `key` for its next edit, if it was checked before (the oldest
        documents' states are dropped)."""
        with self._lock:
            if key not in self._checked:
                self._checked[key] = None
                while len(self._checked) > 256:
                    self._checked.pop(next(iter(self._checked)))
                return
            self.states.pop(key, None)
            self.states[key] = state
            while len(self.states) > self.limit or (
                len(self.states) > 1
                and sum(kept.lines for kept in self.states.values()) > self.budget_lines
            ):
                self.states.pop(next(iter(self.states)))

    def _start(
        self,
        state: State | None,
        text: str,
        token: object,
        parse: Callable[[], ast.Module | None],
        stores: Stores,
    ) -> tuple[ast.Module, Edit | None, FileSyntax | None, Graft | None] | None:
        """The tree of `text` and what the replay must treat as changed (None: analyse in
        full), its syntax facts when made already, and the graft if any: the same tree
        when only comments changed, the grafted one when one function did, else a new
        parse (None when it fails)."""
        usable = state is not None and state.token == token and "\r" not in text
        lines = _comments_only(state, text) if state is not None and usable else None
        if state is not None and lines is not None:
            syntax: FileSyntax = _Syntax(state.tree, text, same_tree=state.syntax)
            if state.syntax._order is not None and _same_calls(state, text, lines):
                syntax._order = state.syntax._order
            why = _syntax_differs(state.syntax, syntax, {}, state.text, text)
            _carry_tree_facts(state.syntax, syntax)
            if why is not None:
                self.counters.fallbacks[why] += 1
                return state.tree, None, syntax, None
            self.counters.comments += 1
            empty: frozenset[int] = frozenset()
            same = Edit(empty, empty, empty, empty, {}, walks=False, comments_only=True)
            return state.tree, same, syntax, None
        grafted = _graft(state, text) if state is not None and usable else None
        if state is None or grafted is None:
            stores.clear()  # another tree: none of its nodes is asked about again
            tree = parse()
            return None if tree is None else (tree, None, None, None)
        self.counters.grafted += 1
        walked = answer_in(stores, _MODULE_WALK, state.tree)
        indexed = answer_in(stores, _TYPE_INDEX, state.tree)
        changed = {id(state.tree), id(grafted.new), *map(id, grafted.classes), *_old_body(grafted)}
        drop_answers(stores, lambda node: node not in changed)
        patched = None if walked is None else patched_walk_runs(walked, grafted.new, grafted.old)
        if walked is not None and patched is not None:
            (nodes, parents), runs = patched
            seed(stores, _MODULE_WALK, state.tree, (nodes, parents))
            if indexed is not None and indexed[0] is walked[0]:
                index = patched_index(indexed[1], nodes, runs)
                seed(stores, _TYPE_INDEX, state.tree, (nodes, index, {}))
            self.counters.patched_walks += 1
        edit, why, syntax = _validate(state, grafted, text, stores)
        if edit is None:
            self.counters.fallbacks[why] += 1
        else:
            for compute, node, answer in state.containers:
                seed(stores, compute, node, answer)
        return state.tree, edit, syntax, grafted

    def analyse(
        self,
        key: str,
        state: State | None,
        text: str,
        imports: ProjectImports | None,
        token: object,
        parse: Callable[[], ast.Module | None],
        stores: Stores,
    ) -> tuple[ast.Module, ModuleAnalysis, State] | None:
        """The tree and analysis of `text`, and the state to `keep` once nothing reads the
        tree any more (the next edit changes it in place). `state` (the last analysis of
        document `key`, from `take`) is reused when the edit allows it (see the module
        docs); None when the text does not parse. `token` tells the project facts and
        settings apart: another token, a full run. `stores` are the cached answers of the
        tree scope the caller opened (`state.stores` when there is a state): the answers
        about unchanged nodes are kept, the others dropped here."""
        start = self._start(state, text, token, parse, stores)
        if start is None:
            return None
        tree, edit, syntax, grafted = start
        state_tree = state.tree if state is not None and grafted is None else None
        retired = state.retired[-64:] if state is not None and tree is state.tree else []
        if grafted is not None:
            retired = [*retired, grafted.old]
        if edit is None:
            self.counters.full += 1
            syntax = _Syntax(tree, text) if syntax is None else syntax
        else:
            self.counters.reused += 1
        assert syntax is not None
        last = state.analysis if state is not None else None
        if edit is not None and edit.comments_only and state is not None and last is not None:
            # The same tree, and every fact the analysis reads off the text is the same
            # (`_syntax_differs`): the analysis is the last one, as it was.
            self.counters.kept_analyses += 1
            return tree, last, dataclasses.replace(state, text=text, syntax=syntax, retired=retired)
        watcher = Watcher()
        # Passes made without frozen facts (`unfreeze_loops`) are not replayed into ones with.
        reusable = edit is not None and state is not None and not state.without_frozen_facts
        previous = state.passes if reusable and state is not None else None

        def survey() -> dict[int, Candidate] | None:
            if edit is None or state is None or state.found is None:
                return None
            if grafted is None:
                return state.found  # the same tree
            assert syntax is not None
            return _candidates_moved(state.found, grafted, syntax)

        with watching(watcher):
            analysis, passes, replayed, found = _analyse(
                tree, text, imports, syntax, previous, edit, watcher, survey
            )
            without = syntax.frozen_facts and not certain_unfreezes(tree, analysis.unfreeze_runs)
            if without:
                # As `model._analyse`: a loop unfreezing by name may unfreeze something.
                analysis, passes, more, found = _analyse(
                    tree, text, imports, syntax, None, None, watcher, survey, frozen_facts=False
                )
                replayed += more
        self.counters.replayed_steps += replayed
        self.counters.run_steps += sum(len(p.steps) for p in passes) - replayed
        containers = watcher.containers
        depends: dict[Any, str] = getattr(imports, "depends", {})
        if edit is not None and state is not None:
            containers = _merge(state.containers, containers)
            # Replayed steps asked the project nothing: what they read is still read.
            for path, content in state.depends.items():
                depends.setdefault(path, content)
        kept = State(
            text,
            tree,
            syntax,
            passes,
            containers,
            token,
            dict(depends),
            stores,
            found,
            retired,
            analysis=analysis,
            multiline_strings=state.multiline_strings if state and tree is state_tree else None,
            without_frozen_facts=bool(without),
        )
        return tree, analysis, kept


def keep_answers(tree: ast.Module, stores: Stores, checks: int) -> None:
    """After a check (the `checks`-th of the document): keep the cached answers about nodes
    of `tree` only. The answers about replaced nodes are dropped when the edit is grafted;
    those about nodes the analysis made itself (never asked for again) only every
    `_PRUNE_EVERY` checks, which spares collecting the ids of every node of the tree."""
    if checks % _PRUNE_EVERY:
        return
    live = {id(node) for node in module_nodes(tree)}
    drop_answers(stores, live.__contains__)


_PRUNE_EVERY = 16


def _merge(
    old: list[tuple[Callable[[Any], Any], ast.AST, Any]],
    new: list[tuple[Callable[[Any], Any], ast.AST, Any]],
) -> list[tuple[Callable[[Any], Any], ast.AST, Any]]:
    """The container answers of the new run, and the old ones it did not compute again
    (checked equal for the new tree by `_validate`, which recomputed them)."""
    seen = {(compute, id(node)) for compute, node, _ in new}
    return [*new, *(entry for entry in old if (entry[0], id(entry[1])) not in seen)]


# -- grafting ---------------------------------------------------------------------------


def _graft(state: State, text: str) -> Graft | None:
    """Put the new definition of the one edited function into `state.tree` (see the module
    docs), or None when the edit is not confined to one function."""
    span = _changed_span(state.text, text)
    if span is None or text.startswith("\ufeff"):
        return None
    old_lines, new_lines, first, last = span
    found = _enclosing(state.tree, first + 1, last + 1, [])
    if found is None:
        return None
    old, parent, classes = found
    start = min([old.lineno, *(d.lineno for d in old.decorator_list)])
    end = old.end_lineno or old.lineno
    indent = _indent(old_lines[start - 1])
    if _indent(new_lines[start - 1]) != indent or (indent and start < 2):
        return None
    segment = "\n".join(new_lines[start - 1 : end])
    if "\x0c" in segment:
        return None  # a form feed resets the indentation the padding relies on
    if indent:
        source = "\n" * (start - 2) + "if 1:\n" + segment + "\n"
    else:
        source = "\n" * (start - 1) + segment + "\n"
    new = _parse_one(source, bool(indent))
    if new is None or not _same_header(old, new):
        return None
    # The definition keeps its identity (values, class infos and journals name it): its
    # fields become the new ones, and a copy keeps the old ones for the comparisons.
    snapshot = copy.copy(old)
    for name in (*old._fields, *old._attributes):
        setattr(old, name, getattr(new, name, None))
    return Graft(snapshot, old, parent, classes)


def _carry_tree_facts(old: FileSyntax, new: FileSyntax) -> None:
    """Give `new` (of the same tree as `old`, another text) what `old` computed from the tree
    alone: its whole-file counts and per-node caches."""
    new._star_count, new._class_binds = old._star_count, old._class_binds
    new._attribute_stores, new._foreign_stores = old._attribute_stores, old._foreign_stores
    new._settings = old._settings
    new._changed_in_place = old._changed_in_place
    for name in ("_attribute_names", "_namespaces", "_configs"):  # facts newer FileSyntax has
        if getattr(old, name, None) is not None:
            setattr(new, name, getattr(old, name))
    new.appended_lists.update(old.appended_lists)


def _comments_only(state: State, text: str) -> list[int] | None:
    """The lines (1-based) the edit changed when they are comment and blank lines only,
    outside strings, and the line count is kept: the new text's tree is then the old one,
    positions included. None for any other edit."""
    span = _changed_span(state.text, text)
    if span is None or text.startswith("\ufeff"):
        return None
    old_lines, new_lines, first, last = span
    changed = [i + 1 for i in range(first, last + 1) if old_lines[i] != new_lines[i]]
    if not all(
        _comment_or_blank(old_lines[n - 1]) and _comment_or_blank(new_lines[n - 1]) for n in changed
    ):
        return None
    # A line of a string spanning several lines is no comment, whatever it starts with.
    if state.multiline_strings is None:
        state.multiline_strings = _multiline_strings(state.tree)
    if any(start < n <= end for start, end in state.multiline_strings for n in changed):
        return None
    return changed


# What `str.splitlines` breaks lines at besides `\n` and `\r`.
_OTHER_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _same_calls(state: State, text: str, changed: list[int]) -> bool:
    """Whether the names followed by `(` in the lines of every function holding a changed
    line are the same in both texts: the text's part of `callees_first`, whose order is then
    the last one."""
    span = _changed_span(state.text, text)
    if span is None or _OTHER_BREAKS.search(state.text) or _OTHER_BREAKS.search(text):
        return False  # `callees_first` splits lines at these too: other line numbers
    old_lines, new_lines, _, _ = span
    for function in state.syntax.functions:
        start, end = function.lineno, function.end_lineno or function.lineno
        if any(start <= n <= end for n in changed):
            before = names_called("\n".join(old_lines[start - 1 : end]))
            if names_called("\n".join(new_lines[start - 1 : end])) != before:
                return False
    return True


def _multiline_strings(tree: ast.Module) -> list[tuple[int, int]]:
    """The first and last line of each string of `tree` spanning several lines."""
    spans = []
    for node in module_nodes_of(tree, ast.Constant, ast.JoinedStr):
        end = node.end_lineno or node.lineno
        if end > node.lineno:
            spans.append((node.lineno, end))
    return spans


@last_calls(1)
@last_calls(1)
def _changed_span(old: str, new: str) -> tuple[list[str], list[str], int, int] | None:
    """Both texts' lines and the first and last (0-based) that differ, when the line count
    is the same and some line differs; else None. (Kept for the last pair of texts: the
    comments-only test, the graft and the call-order test all ask.) Shared: never change
    the lines."""
    old_lines, new_lines = syntax_parts.lines_of(old), syntax_parts.lines_of(new)
    count = len(old_lines)
    if len(new_lines) != count:
        return None
    # Runs of lines are compared as lists (in C), then lines one by one inside the first run
    # that differs: an edit of a 5,000-line file compares a few dozen runs, not every line.
    step, first = _RUN, 0
    while first < count and old_lines[first : first + step] == new_lines[first : first + step]:
        first += step
    if first >= count:
        return None
    first = next(i for i in range(first, count) if old_lines[i] != new_lines[i])
    last = count
    while last - step > first and old_lines[last - step : last] == new_lines[last - step : last]:
        last -= step
    last = next(i for i in range(last - 1, first - 1, -1) if old_lines[i] != new_lines[i])
    return old_lines, new_lines, first, last


# Lines compared at once while looking for the first and last changed line.
_RUN = 64


def _comment_or_blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _enclosing(
    owner: ast.Module | ast.ClassDef, first: int, last: int, classes: list[ast.ClassDef]
) -> tuple[FunctionNode, ast.Module | ast.ClassDef, list[ast.ClassDef]] | None:
    """The definition of `owner`'s body (or of a class in it, at any depth) whose lines,
    decorators included, hold lines `first`..`last`."""
    for stmt in owner.body:
        start = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
        end = stmt.end_lineno or stmt.lineno
        if start <= first and last <= end:
            if isinstance(stmt, _DEFS):
                return stmt, owner, classes
            if isinstance(stmt, ast.ClassDef) and start < first:
                return _enclosing(stmt, first, last, [stmt, *classes])
            return None
        if start > last:
            return None
    return None


def _parse_one(source: str, wrapped: bool) -> FunctionNode | None:
    """The one definition `source` holds (inside the `if 1:` header when `wrapped`)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    body = module.body
    if wrapped:
        if len(body) != 1 or not isinstance(body[0], ast.If) or body[0].orelse:
            return None
        body = body[0].body
    if len(body) != 1 or not isinstance(body[0], _DEFS):
        return None
    return body[0]


def _same_header(old: FunctionNode, new: FunctionNode) -> bool:
    """Same kind, name, parameters, decorators and annotations, positions included: what
    other code reads of a function without interpreting its body."""
    if type(old) is not type(new) or old.name != new.name:
        return False
    parts = ("args", "decorator_list", "returns", "type_params")
    return all(
        _dump(getattr(old, part, None)) == _dump(getattr(new, part, None)) for part in parts
    ) and (old.lineno, old.col_offset) == (new.lineno, new.col_offset)


def _dump(value: object) -> str:
    if isinstance(value, list):
        return repr([_dump(item) for item in value])
    if isinstance(value, ast.AST):
        return ast.dump(value, include_attributes=True)
    return repr(value)


# -- what the replay must see as changed ------------------------------------------------


def _validate(
    state: State, graft: Graft, text: str, stores: Stores
) -> tuple[Edit | None, str, FileSyntax]:
    """The edit's changed nodes, or None (and why) when syntax the steps read without a
    journal entry differs for the new tree (`stores`: the answers of the tree's scope)."""
    old_defs = [n for n in walk(graft.old) if isinstance(n, _DEFS)][1:]  # nested ones
    new_defs = [n for n in walk(graft.new) if isinstance(n, _DEFS)][1:]
    if [d.name for d in old_defs] != [d.name for d in new_defs]:
        return None, "nested definitions", _Syntax(state.tree, text)
    keys = {id(new): id(old) for old, new in zip(old_defs, new_defs, strict=True)}
    part = syntax_parts.EditedPart(
        graft.old, graft.new, state.text, text, keys, tuple(new_defs), tuple(old_defs)
    )
    syntax = _Syntax(state.tree, text, state.syntax, part)
    old_classes = [n for n in walk(graft.old) if isinstance(n, ast.ClassDef)]
    why = _syntax_differs(state.syntax, syntax, keys, state.text, text)
    if why is None:
        why = _counts_differ(state.syntax, syntax, graft)
    if why is not None:
        return None, why, syntax
    answers = _containers_same(state, graft, syntax, keys, stores)
    if answers is None:
        return None, "module or class answers", syntax
    state.containers = answers
    chain = {id(c) for c in graft.classes} | {id(c) for c in old_classes}
    dirty = {id(c) for c in old_classes}
    if graft.classes and _class_view(graft.old) != _class_view(graft.new):
        dirty.add(id(graft.classes[0]))
    return (
        Edit(
            changed=frozenset({id(graft.new), *(id(d) for d in old_defs)}),
            old_nodes=frozenset({id(graft.new), *_old_body(graft)}),
            dirty_classes=frozenset(dirty),
            verdict_classes=frozenset(chain),
            keys=keys,
        ),
        "",
        syntax,
    )


def _old_body(graft: Graft) -> set[int]:
    """id() of the old nodes under the edited definition (not of the definition itself)."""
    return {id(n) for n in walk(graft.old)} - {id(graft.old)}


def _syntax_differs(
    old: FileSyntax, new: FileSyntax, keys: dict[int, int], old_text: str, text: str
) -> str | None:
    """Which of the file-wide syntactic facts the steps read differs, if any."""
    plain = (
        "walrus",
        "star_imports",
        "freezes_parameters",
        "frozen_facts",
        "always_training",
        "default_float32",
    )
    for name in (*plain, "defines_item", "declared_global"):
        if getattr(old, name) != getattr(new, name):
            return name
    if [keys.get(id(f), id(f)) for f in new.functions] != [id(f) for f in old.functions]:
        return "functions"
    parents = {keys.get(k, k): keys.get(id(v), id(v)) for k, v in new.parent_scope.items()}
    if parents != {k: id(v) for k, v in old.parent_scope.items()}:
        return "scopes"
    if [keys.get(id(f), id(f)) for f in new.order()] != [id(f) for f in old.order()]:
        return "order"
    if old._settings is not None and old.unchanged_dicts() != new.unchanged_dicts():
        return "_settings"
    if old.may_call_backward(old.tree) and old._backward_lines != _backward_lines(new):
        return "backward lines"
    if _grad_state_changed(old_text) != _grad_state_changed(text):
        return "grad state text"
    if _names_detach_(old_text) != _names_detach_(text):
        return "detach_ text"
    reach = old._freeze_reach
    if reach is not None and any(new.outside_freezes(a) != b for a, b in reach.answers.items()):
        return "freeze reach"
    return _unknown_facts_differ(old, new, keys)


# `FileSyntax` attributes the checks here know: compared above, by `_counts_differ`, or
# made again for the new tree (scopes, per-node caches).
_KNOWN_SYNTAX = frozenset(
    {
        "tree",
        "text",
        "walrus",
        "star_imports",
        "functions",
        "declared_global",
        "parent_scope",
        "scopes",
        "appended_lists",
        "freezes_parameters",
        "frozen_facts",
        "always_training",
        "default_float32",
        "defines_item",
        "_order",
        "_backward_lines",
        "_star_count",
        "_attribute_stores",
        "_foreign_stores",
        "_sets_any_attribute",
        "_class_binds",
        "_settings",
        "_attribute_names",
        "_namespaces",
        "_configs",
        "_settings_classes",
        "_freeze_reach",
        "_changed_in_place",
    }
)


def _unknown_facts_differ(old: FileSyntax, new: FileSyntax, keys: dict[int, int]) -> str | None:
    """A fact `FileSyntax` holds that the checks here do not know (one added since): made
    at construction, it must be equal for the new tree; made on demand, the edit takes the
    full path (a step may have read it). So a new whole-file fact makes the fast path
    slower until it is taught here, never wrong."""
    same = {old_key: new_key for new_key, old_key in keys.items()}
    for name, value in vars(old).items():
        if name in _KNOWN_SYNTAX or value is None:
            continue
        fresh = getattr(new, name, None)
        if fresh is None or not _equal(value, fresh, set(), same):
            return f"FileSyntax.{name}"
    return None


def _counts_differ(old: FileSyntax, new: FileSyntax, graft: Graft) -> str | None:
    """Which of the whole-file counts the last analysis asked for (`FileSyntax`'s lazy
    ones) the edit changes. They are sums over the file's parts: the edited function's part
    is compared, old and new, and the old counts carried over when it is the same (a
    `from m import *` is never inside a function: that count stays)."""
    new._star_count = old._star_count
    if old._class_binds is not None:
        if _class_binds_part(graft.old) != _class_binds_part(graft.new):
            return "class-level binds"
        new._class_binds = old._class_binds
    if old._attribute_stores is not None or old._foreign_stores is not None:
        if _stores_part(graft.old) != _stores_part(graft.new):
            return "attribute stores"
        new._attribute_stores, new._foreign_stores = old._attribute_stores, old._foreign_stores
        new._sets_any_attribute = old._sets_any_attribute
    # Facts newer than this module knows by type (read when the syntax has them).
    names = getattr(old, "_attribute_names", None)
    if names is not None:
        if _attribute_part(graft.old) != _attribute_part(graft.new):
            return "attribute names"
        setattr(new, "_attribute_names", names)  # noqa: B010 (an attribute newer FileSyntax has)
    changed = old._changed_in_place
    if changed is not None:
        resolve = new.scope_of(new.tree).resolve
        if changed_in_place_part(graft.old, resolve) != changed_in_place_part(graft.new, resolve):
            return "attributes changed in place"
        new._changed_in_place = changed
    # Whole-file facts keyed by the calls that build them: the same calls (unchanged nodes
    # keep their identity) with equal facts, or the edit may change what code reads of them.
    namespaces = getattr(old, "_namespaces", None)
    if namespaces is not None and namespaces != new.namespaces():
        return "parsed namespaces"
    configs = getattr(old, "_configs", None)
    if configs is not None and configs != new.config_instances():
        return "config instances"
    classes = getattr(old, "_settings_classes", None)
    if classes is not None and classes != new.settings_classes():
        return "settings classes"
    return None


def _attribute_part(function: FunctionNode) -> frozenset[str]:
    """The attribute names an expression of `function` reads, calls or stores."""
    return frozenset(node.attr for node in walk(function) if isinstance(node, ast.Attribute))


def _class_binds_part(function: FunctionNode) -> Counter[str]:
    """`FileSyntax.class_level_binds` of the classes defined inside `function`."""
    counts: Counter[str] = Counter()
    for node in walk(function):
        if isinstance(node, ast.ClassDef):
            counts.update(t.id for t in assignment_targets(node.body) if isinstance(t, ast.Name))
            counts.update(d.name for d in own_nodes(node.body) if isinstance(d, _DEFINITIONS))
    return counts


def _stores_part(function: FunctionNode) -> tuple[Counter[str], Counter[str], bool]:
    """What `FileSyntax` counts of attribute stores in `function`: every store or deletion
    of an attribute, those not into `self`, and whether it names `setattr` / `delattr`."""
    stores: Counter[str] = Counter()
    foreign: Counter[str] = Counter()
    dynamic = False
    for node in walk(function):
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            stores[node.attr] += 1
            if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
                foreign[node.attr] += 1
        elif isinstance(node, ast.Name) and node.id in ("setattr", "delattr"):
            dynamic = True
    return stores, foreign, dynamic


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _backward_lines(syntax: FileSyntax) -> list[int] | None:
    syntax.may_call_backward(syntax.tree)
    return syntax._backward_lines


Answers = list[tuple[Callable[[Any], Any], ast.AST, Any]]


def _containers_same(
    state: State, graft: Graft, syntax: FileSyntax, keys: dict[int, int], stores: Stores
) -> Answers | None:
    """Every cached answer the last analysis computed about the module or a class holding
    the edited function is the same for the new tree (old nodes of the edited function in
    an answer count as different, but for its definitions, which stand for the new ones).
    An answer that is a union or a walk-ordered list of parts, one per subtree
    (`_BY_PARTS`), is compared on the edited function's part alone. Returns the answers
    for the new tree (None: one differs), each put into `stores` as soon as it is known to
    hold for the new tree: an answer made again below may read one made before it."""
    holders = {id(state.tree)} | {id(c) for c in graft.classes}
    old_nodes = _old_body(graft)
    same = {old: new for new, old in keys.items()}
    answers: Answers = []
    for compute, node, answer in state.containers:
        if id(compute) in _WALKS or id(compute) in _THROUGH_SYNTAX or id(node) in old_nodes:
            # The steps that read a walk are not replayed (`Edit.veto`); what is read
            # through `FileSyntax`'s caches is compared there (`_appended_lists_same`).
            continue
        if id(node) in holders and getattr(compute, "__qualname__", "") in _BY_PARTS:
            old_part, new_part = ast.Module([graft.old], []), ast.Module([graft.new], [])
            pair = {**same, id(old_part): id(new_part), id(graft.old): id(graft.new)}
            if not _equal(compute(old_part), compute(new_part), set(old_nodes), pair):
                return None
            seed(stores, compute, node, answer)
        elif id(node) in holders:
            fresh = compute(node)
            if not _equal(answer, fresh, old_nodes, same):
                return None
            answer = fresh
            seed(stores, compute, node, answer)
        answers.append((compute, node, answer))
    return answers if _appended_lists_same(state, syntax, graft, old_nodes, same) else None


# The walks of a whole module (`walk.module_nodes`, `module_nodes_of`, `module_parents`):
# id() of the functions computing them, as `node_cache.Watcher` notes them in a step's reads.
_WALKS = frozenset(
    id(getattr(cached, "__wrapped__", cached))
    for cached in (walk_module._module_walk, walk_module._type_index)
)

# Answers about the module only ever read through `FileSyntax.appended_lists`, which
# `_appended_lists_same` checks: made again when a class's scan is.
_THROUGH_SYNTAX = frozenset({id(getattr(appended_state._index, "__wrapped__", None))})

_MODULE_WALK = getattr(walk_module._module_walk, "__wrapped__", walk_module._module_walk)
_TYPE_INDEX = getattr(walk_module._type_index, "__wrapped__", walk_module._type_index)

# Scans of a whole module or class whose answer is the union, the sum or the walk-ordered
# list of what each part gives: equal parts for the edited function mean equal answers. (The
# class scans read the class's body only: a module holding the function alone stands for
# the function's part of it.)
_BY_PARTS = frozenset(
    {
        "_container_changes",
        "_changed_attribute_containers",
        "_shared_changes",
        "_aliases_changed",
        "_rebound_attributes",
        "_load_counts",
        "_self_stores",
        "_class_assigned",
        "_registers_by_name",
        "_mode_mentions",
        "_bound_names",
        "foreign_children",
    }
)


def _appended_lists_same(
    state: State, syntax: FileSyntax, graft: Graft, old_nodes: set[int], same: dict[int, int]
) -> bool:
    """The appended-list scans (`ModuleInterpreter.appended_items`) made so far read every
    mention of the lists' names in the module: made again for the new tree, they must
    agree. A class none of whose candidate lists (the attributes its `__init__` sets to
    `[]`) the edited function mentions, before or after, gives the same answer: its scan is
    carried over without being made again."""
    if not state.syntax.appended_lists:
        return True
    classes = {id(c): c for c in module_nodes_of(state.tree, ast.ClassDef)}
    mentioned = _mentioned_names(graft.old) | _mentioned_names(graft.new)
    scratch: ModuleInterpreter | None = None
    for key, old in state.syntax.appended_lists.items():
        node = classes.get(key)
        if node is None:
            return False
        init = next((s for s in node.body if isinstance(s, _DEFS) and s.name == "__init__"), None)
        if init is None or (init is not graft.new and not mentioned & _list_resets(init)):
            syntax.appended_lists[key] = old
            continue
        if scratch is None:
            scratch = ModuleInterpreter(
                state.tree, ModuleAnalysis(state.tree), syntax.text, syntax=syntax
            )
        if not _equal(old, scratch._find_appended_lists(node), old_nodes, same):
            return False
    return True


def _mentioned_names(function: FunctionNode) -> set[str]:
    """The attribute names and string constants of a function (`appended_state` finds a
    list's uses by them)."""
    names: set[str] = set()
    for node in walk(function):
        if isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    return names


def _equal(old: object, new: object, old_nodes: set[int], same: dict[int, int]) -> bool:
    """`old == new`, nodes compared by identity, an old node of the edited function never
    equal to anything but the new node `same` pairs it with."""
    if isinstance(old, ast.AST) or isinstance(new, ast.AST):
        if id(old) in same:
            return same[id(old)] == id(new)
        return old is new and id(old) not in old_nodes
    if type(old) is not type(new):
        return False
    if isinstance(old, tuple | list):
        assert isinstance(new, tuple | list)
        return len(old) == len(new) and all(
            _equal(a, b, old_nodes, same) for a, b in zip(old, new, strict=True)
        )
    if isinstance(old, dict):
        assert isinstance(new, dict)
        return old.keys() == new.keys() and all(
            _equal(value, new[k], old_nodes, same) for k, value in old.items()
        )
    if isinstance(old, frozenset | set) and any(isinstance(x, ast.AST) for x in old):
        return False
    return old == new


def _class_view(function: FunctionNode) -> object:
    """What building its class's info reads of a method (`ModuleInterpreter.class_info`):
    its top-level stores into attributes of its first parameter (a setter, a module built
    outside `__init__`), with the names it binds when it has any (they decide whether a
    parameter is rebound, and how the stored expression's names resolve), and every
    attribute store and registered buffer. `__init__` is read whole."""
    if function.name == "__init__":
        return ast.dump(function, include_attributes=True)
    first = first_parameter(function)
    assigns = [
        ast.dump(s, include_attributes=True)
        for s in function.body
        if isinstance(s, ast.Assign)
        and any(
            isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == first
            for t in s.targets
        )
    ]
    names: list[tuple[str, bool]] = []
    if assigns:
        # Whether the method binds each name its top-level assignments read (a parameter it
        # keeps must not be rebound; a stored expression's names resolve in its scope), and
        # what it declares `global` / `nonlocal`.
        read = {
            n.id
            for s in function.body
            if isinstance(s, ast.Assign)
            for n in walk(s.value)
            if isinstance(n, ast.Name)
        }
        bound = {
            n.id
            for n in walk(function)
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        }
        declared = {
            d for n in walk(function) if isinstance(n, ast.Global | ast.Nonlocal) for d in n.names
        }
        names = sorted({(name, name in bound) for name in read} | {(d, True) for d in declared})
    stores = sorted(
        ast.dump(t) for t in assignment_targets(function.body) if not isinstance(t, ast.Name)
    )
    buffers = sorted(
        ast.dump(n)
        for n in walk(function)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "register_buffer"
    )
    return assigns, names, stores, buffers


# -- the passes -------------------------------------------------------------------------


def _analyse(
    tree: ast.Module,
    text: str,
    imports: ProjectImports | None,
    syntax: FileSyntax,
    previous: list[Pass] | None,
    edit: Edit | None,
    watcher: Watcher,
    survey: Callable[[], dict[int, Candidate] | None],
    *,
    frozen_facts: bool = True,
) -> tuple[ModuleAnalysis, list[Pass], int, dict[int, Candidate] | None]:
    """`model._analyse`, each pass replaying the same pass of the previous analysis when
    there is an edit to replay across (see the module docs). `survey` gives the functions
    that may learn from call sites when it can tell them without `candidates` (None: it
    cannot)."""
    facts: dict[int, CallerFacts] = {}
    found: dict[int, Candidate] | None = None
    passes: list[Pass] = []
    journal: Journal | None = None
    replayed = 0
    for attempt in range(model._GRAD_MODE_PASSES + 1):
        if previous is not None and edit is not None and attempt < len(previous):
            before = passes[-1] if passes else None
            facts, changed = _reuse(facts, previous[attempt].facts, edit)
            journal = _CrossEditJournal(
                previous[attempt].steps,
                changed,
                veto=edit.veto,
                watcher=watcher,
                alternative=before.steps if before is not None else None,
                alt_changed=_differing(before.facts, facts) if before is not None else frozenset(),
            )
        elif journal is None:
            journal = Journal(watcher=watcher)
        analysis = ModuleAnalysis(tree)
        journal.watch(analysis)
        sites = CallSites()
        ModuleInterpreter(
            tree,
            analysis,
            text,
            call_sites=sites,
            parameter_facts=facts,
            imports=imports,
            syntax=syntax,
            journal=journal,
            frozen_facts=frozen_facts,
        ).run()
        passes.append(Pass(journal.steps, facts))
        replayed += journal.replayed
        journal.close()
        if found is None:
            if not sites.informative():
                return analysis, passes, replayed, found
            found = survey()
            if found is None:
                found = candidates(tree)
        learnt = sites.facts(found)
        if model.settled(attempt, facts, learnt):
            return analysis, passes, replayed, found
        journal = Journal(passes[-1].steps, frozenset(facts) | frozenset(learnt), watcher=watcher)
        facts = learnt
    raise AssertionError("unreachable")  # pragma: no cover


def _candidates_moved(
    found: dict[int, Candidate], graft: Graft, syntax: FileSyntax
) -> dict[int, Candidate] | None:
    """`call_sites.candidates` of the new tree from the old tree's, when the edited
    function's part of the survey is the same but for the identity of its calls: the calls
    it holds, paired in walk order, have the same callee names and arguments' shape, it
    mentions the file's functions and classes otherwise as before, it may learn from its
    callers as before, and it defines nothing inside. Then only the ids of its calls
    change. None: survey again."""
    if graft.new.name == "__init__":
        return None  # a constructor's candidacy reads its body (`_keeps_parameter_on_self`)
    before, after = _Survey(), _Survey()
    before.visit(ast.Module([graft.old], []))
    after.visit(ast.Module([graft.new], []))
    if len(before.defs) != 1 or len(after.defs) != 1 or before.classes or after.classes:
        return None
    # Other mentions matter for the names of the file's functions and classes only.
    defined = {f.name for f in syntax.functions}
    defined.update(c.name for c in module_nodes_of(syntax.tree, ast.ClassDef))
    if (before.names.other ^ after.names.other) & defined or (
        before.attributes.other ^ after.attributes.other
    ) & defined:
        return None
    old_calls, new_calls = list(before.calls.values()), list(after.calls.values())
    if len(old_calls) != len(new_calls) or any(
        _call_shape(a) != _call_shape(b) for a, b in zip(old_calls, new_calls, strict=True)
    ):
        return None
    old_bound = [_call_shape(b) for b in before.bindings.values()]
    if old_bound != [_call_shape(b) for b in after.bindings.values()]:
        return None  # a thread's target, or what it is given, changed
    if any(
        may_learn(graft.old, skip_self=s) != may_learn(graft.new, skip_self=s)
        for s in (False, True)
    ):
        return None
    moved = {id(a): id(b) for a, b in zip(old_calls, new_calls, strict=True)}
    return {
        key: dataclasses.replace(c, calls=frozenset(moved.get(i, i) for i in c.calls))
        for key, c in found.items()
    }


def _call_shape(call: ast.Call) -> object:
    """What the survey and `call_sites._may_bind` read of a call: its callee's name and
    kind, and its arguments' shape."""
    func = call.func
    callee = (type(func).__name__, getattr(func, "id", None), getattr(func, "attr", None))
    starred = tuple(isinstance(a, ast.Starred) for a in call.args)
    return callee, starred, tuple(kw.arg for kw in call.keywords)


class _CrossEditJournal(Journal):
    """A pass's journal across an edit. A step replays the same step of the previous
    analysis's same pass (with the edit's changed functions and veto) or, failing that, of
    this analysis's pass before (`alternative`, with the functions whose facts are other
    objects in the two passes as `alt_changed`): the edited function, run afresh in the
    first pass, so replays in the next ones when nothing it reads differs.

    Every step reads the module-level names without a journal entry: a step is replayed
    from a pass only when this pass's first step is that pass's (the same names). A step
    that read the analysis lists is replayed only when every step before it came from the
    same pass (the same lists)."""

    def __init__(
        self,
        previous: list[Step],
        changed: frozenset[int],
        *,
        veto: Callable[[Step], bool],
        watcher: Watcher,
        alternative: list[Step] | None,
        alt_changed: frozenset[int],
    ) -> None:
        super().__init__(previous, changed, veto=veto, watcher=watcher)
        self.alternative = alternative
        self.alt_changed = alt_changed
        self._sources: set[int] = set()  # id() of the step lists replayed from so far

    def _replay_source(
        self, index: int, interpreter: ModuleInterpreter, *, first: bool
    ) -> Step | None:
        for source, changed, veto in (
            (self.previous, self.changed, self.veto),
            (self.alternative, self.alt_changed, None),
        ):
            if not source or index >= len(source):
                continue
            step = source[index]
            if index and not (self.steps and self.steps[0] is source[0]):
                continue  # other module-level names
            if step.reads_analysis and not self._sources <= {id(source)}:
                continue  # other analysis lists
            if self._replayable(step, interpreter, first=first, changed=changed, veto=veto):
                self._sources.add(id(source))
                return step
        self._sources.add(0)
        return None


def _differing(before: dict[int, CallerFacts], now: dict[int, CallerFacts]) -> frozenset[int]:
    """id() of the functions whose facts are not the very same object in both passes."""
    return frozenset(k for k in before.keys() | now.keys() if before.get(k) is not now.get(k))


def _reuse(
    facts: dict[int, CallerFacts], old: dict[int, CallerFacts], edit: Edit
) -> tuple[dict[int, CallerFacts], frozenset[int]]:
    """`facts` with the old pass's object kept for every function whose facts are equal
    (they give the same analysis), and id() of the old functions whose facts differ."""
    kept: dict[int, CallerFacts] = {}
    changed = set(edit.changed)
    for key, value in facts.items():
        before = old.get(key) if key not in edit.keys else None
        if before is not None and before == value:
            kept[key] = before
        else:
            kept[key] = value
            changed.add(edit.keys.get(key, key))
    changed.update(key for key in old if key not in facts)
    return kept, frozenset(changed)
