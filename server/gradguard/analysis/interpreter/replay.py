"""Replaying the steps of an analysis pass that a later call-site pass would repeat as is.

A call-site pass (`gradguard.analysis.model`) interprets the whole module again because
the calls of a few functions taught something about their parameters; most steps of that
pass do exactly what they did in the previous one. A pass is a sequence of steps: the
module-level names, each function's summary in callee-first order, the module body. What a
step does depends only on what it reads of the state earlier steps left, and on the
parameter facts of the functions whose bodies it interprets. So each step is journaled:

* what it read of shared state, at its first read of each entry: the summary of a function
  (or that there was none yet), the class info of a class, the verdict of
  `ClassCheck.self_contained`, the training a function's own interpretation recorded (its
  backward calls and optimizer steps: `own_events`, what a caller running it in a loop
  reads), and whether it read the recorded analysis lists otherwise
  (`ModuleAnalysis.backward_calls`, `inplace_on_saved`, `events.of`);
* which function bodies it interpreted;
* what it left: the summaries, class infos and verdicts it added, the entries it appended
  to the analysis, the calls it noted (`CallSites.note`).

In the next pass a step is replayed, its effects appended as they were, when every entry it
read is the very same object now (or still absent; a function's own events, the very same
events), no function it interpreted has other parameter facts, and, if it read the analysis
lists otherwise, every step before it was replayed too (the lists are then the same).
Otherwise it runs, and is journaled afresh. By induction over the steps, the replayed pass
ends in the state the full pass would reach: same analysis entries in the same order, same
summaries, same call-site facts.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from gradguard.analysis.events import Event, Events, OptimizerCall
from gradguard.analysis.node_cache import Watcher

if TYPE_CHECKING:
    from gradguard.analysis.call_sites import Note
    from gradguard.analysis.interpreter.environment import Env
    from gradguard.analysis.interpreter.module import ModuleInterpreter
    from gradguard.analysis.interpreter.summary import FunctionSummary
    from gradguard.analysis.model import BackwardCall, FunctionNode, ModuleAnalysis
    from gradguard.analysis.values import Carry, ClassInfo

T = TypeVar("T")

# What a function's own interpretation recorded of its training (see `own_events`).
OwnEvents = tuple[tuple["BackwardCall", ...], tuple[OptimizerCall, ...]]

# The analysis lists a step appends to, by attribute of `ModuleAnalysis`.
_LISTS = (
    "backward_calls",
    "bound_values",
    "backward_in_calls",
    "backward_across_methods",
    "torch_calls",
    "inplace_on_saved",
    "opaque_calls",
    "resolved_calls",
    "unfreeze_runs",
)


@dataclass
class Step:
    """The journal of one step of one pass (see the module docs)."""

    entered: set[int] = field(default_factory=set)
    summary_reads: dict[int, FunctionSummary | None] = field(default_factory=dict)
    class_reads: dict[int, ClassInfo | None] = field(default_factory=dict)
    verdict_reads: dict[int, bool | None] = field(default_factory=dict)
    own_event_reads: dict[int, tuple[FunctionNode, OwnEvents]] = field(default_factory=dict)
    reads_analysis: bool = False
    summaries: list[tuple[int, FunctionSummary]] = field(default_factory=list)
    classes: list[tuple[int, ClassInfo]] = field(default_factory=list)
    verdicts: list[tuple[int, bool]] = field(default_factory=list)
    appended: dict[str, list[Any]] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    opaque_with_training_state: set[int] = field(default_factory=set)
    carry_reads: list[tuple[Carry, list[ast.expr]]] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    globals: Env | None = None
    # id() of the nodes whose cached syntactic answers the step read (`node_cache.Watcher`;
    # filled only while the analysis is watched, for replay across edits).
    node_reads: set[int] = field(default_factory=set)


@dataclass
class _Mark:
    """The state a step started from, to tell its effects apart."""

    lists: dict[str, int]
    events: int
    opaque: frozenset[int]
    carry_reads: dict[Carry, int]
    summaries: int
    classes: int
    verdicts: int
    notes: int


class Journal:
    """The steps of one pass, and the previous pass's steps it may replay."""

    def __init__(
        self,
        previous: list[Step] | None = None,
        changed: frozenset[int] = frozenset(),
        *,
        veto: Callable[[Step], bool] | None = None,
        watcher: Watcher | None = None,
    ):
        self.previous = previous
        # id() of the functions whose parameter facts differ from the previous pass's.
        self.changed = changed
        # Across edits (`gradguard.analysis.incremental`): steps of the previous analysis that
        # read syntax the edit changed, and where the step being run notes its node reads.
        self.veto = veto
        self.watcher = watcher
        self.steps: list[Step] = []
        self.current: Step | None = None
        self.replayed_all = True  # every step so far was replayed
        self.first_replayed = False  # the module-level names were replayed
        self.replayed = 0  # how many steps were replayed (for tests)

    # -- reads, noted by the interpreter ----------------------------------------------------

    def read_summary(self, key: int, found: FunctionSummary | None) -> None:
        """The first read, in this step, of a function's summary."""
        if self.current is not None and key not in self.current.summary_reads:
            self.current.summary_reads[key] = found

    def read_class(self, key: int, found: ClassInfo | None) -> None:
        """The first read, in this step, of a class's info."""
        if self.current is not None and key not in self.current.class_reads:
            self.current.class_reads[key] = found

    def read_verdict(self, key: int, found: bool | None) -> None:
        """The first read, in this step, of a `ClassCheck` verdict."""
        if self.current is not None and key not in self.current.verdict_reads:
            self.current.verdict_reads[key] = found

    def read_own_events(self, function: FunctionNode, found: OwnEvents) -> None:
        """The first read, in this step, of what `function`'s interpretation recorded of its
        training (`own_events`)."""
        if self.current is not None and id(function) not in self.current.own_event_reads:
            self.current.own_event_reads[id(function)] = (function, found)

    def read_analysis(self) -> None:
        """The step reads the recorded analysis lists."""
        if self.current is not None:
            self.current.reads_analysis = True

    def entered(self, key: int) -> None:
        """The step interprets the body of a function."""
        if self.current is not None:
            self.current.entered.add(key)

    # -- steps --------------------------------------------------------------------------------

    def step(self, interpreter: ModuleInterpreter, run: Any, *, first: bool = False) -> None:
        """Run the next step (`run()`), or replay it from the previous pass's journal."""
        old = self._replay_source(len(self.steps), interpreter, first=first)
        if old is not None:
            _replay(old, interpreter)
            self.steps.append(old)
            self.replayed += 1
            self.first_replayed = self.first_replayed or first
            return
        self.replayed_all = False
        step = Step()
        mark = _mark(interpreter)
        self.current = step
        if self.watcher is not None:
            self.watcher.reads = step.node_reads
        try:
            run()
        finally:
            self.current = None
            if self.watcher is not None:
                self.watcher.reads = None
        _effects(step, mark, interpreter, first=first)
        self.steps.append(step)

    def _replay_source(
        self, index: int, interpreter: ModuleInterpreter, *, first: bool
    ) -> Step | None:
        """The step of an earlier pass to replay as step `index`, if one may be."""
        old = self.previous[index] if self.previous and index < len(self.previous) else None
        if old is not None and self._replayable(old, interpreter, first=first):
            return old
        return None

    def _replayable(
        self,
        old: Step,
        interpreter: ModuleInterpreter,
        *,
        first: bool,
        changed: frozenset[int] | None = None,
        veto: Callable[[Step], bool] | None = None,
    ) -> bool:
        """Whether `old` would do the same now (with `changed` given: those functions'
        facts and `veto` instead of this journal's own)."""
        if not first and not self.first_replayed:
            return False  # the module-level names were computed again: every step reads them
        if old.reads_analysis and not self.replayed_all:
            return False
        if changed is None:
            changed, veto = self.changed, self.veto
        # Plain loops, no sets or generators made: every step of every pass asks this.
        if not old.entered.isdisjoint(changed):
            return False
        if veto is not None and veto(old):
            return False
        summaries = interpreter.summaries
        for key, summary in old.summary_reads.items():
            if summaries.get(key) is not summary:
                return False
        classes = interpreter.classes
        for key, info in old.class_reads.items():
            if classes.get(key) is not info:
                return False
        if old.verdict_reads:
            verdicts = _verdicts(interpreter)
            for key, verdict in old.verdict_reads.items():
                if verdicts.get(key) is not verdict:
                    return False
        for function, found in old.own_event_reads.values():
            if not _same_events(own_events(interpreter.analysis, function), found):
                return False
        return True

    def close(self) -> None:
        """Forget the steps: the analysis kept after the last pass holds this journal
        (through its watched lists), not what the passes computed on the way."""
        self.previous = None
        self.steps = []

    def watch(self, analysis: ModuleAnalysis) -> None:
        """Make `analysis` tell this journal when a step reads its recorded lists."""
        analysis.backward_calls = _Watched(self)
        analysis.inplace_on_saved = _Watched(self)
        analysis.events = _WatchedEvents(self)


class _Watched(list[T]):
    """A list of the analysis whose reads (not appends) are noted in the journal."""

    def __init__(self, journal: Journal) -> None:
        super().__init__()
        self._journal = journal

    def __iter__(self) -> Iterator[T]:
        self._journal.read_analysis()
        return super().__iter__()

    def __contains__(self, item: object) -> bool:
        self._journal.read_analysis()
        return super().__contains__(item)


class _WatchedEvents(Events):
    """The events of the analysis, whose reads are noted in the journal."""

    def __init__(self, journal: Journal) -> None:
        super().__init__()
        self._journal = journal

    def of(self, *kinds: type[Event]) -> list[Any]:
        self._journal.read_analysis()
        return super().of(*kinds)

    def __iter__(self) -> Iterator[Event]:
        self._journal.read_analysis()
        return super().__iter__()


def own_events(analysis: ModuleAnalysis, function: FunctionNode) -> OwnEvents:
    """The backward calls recorded in `function` (`ModuleAnalysis.backward_calls`) and its
    optimizer calls not yet seen from a loop of a caller, in recording order: what a caller
    calling it on every iteration of a loop reads (`training_effects`). Read without noting
    a read of the whole lists: a step reading them is replayed when they are the very same
    events, whatever other steps recorded."""
    backward = tuple(e for e in list.copy(analysis.backward_calls) if e.function is function)
    steps = tuple(
        e
        for e in Events.of(analysis.events, OptimizerCall)
        if e.function is function and not e.every_iteration
    )
    return backward, steps


def _same_events(now: OwnEvents, then: OwnEvents) -> bool:
    """Whether `now` holds the very same events as `then`."""
    return all(
        len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))
        for a, b in zip(now, then, strict=True)
    )


def _verdicts(interpreter: ModuleInterpreter) -> dict[int, bool]:
    checker = interpreter.current_class_check()
    return checker.verdicts if checker is not None else {}


def _mark(interpreter: ModuleInterpreter) -> _Mark:
    analysis = interpreter.analysis
    return _Mark(
        {name: len(getattr(analysis, name)) for name in _LISTS},
        len(analysis.events),
        frozenset(analysis.opaque_with_training_state),
        {carry: len(reads) for carry, reads in analysis.carry_reads.items()},
        len(interpreter.summaries),
        len(interpreter.classes),
        len(_verdicts(interpreter)),
        len(interpreter.call_sites.log),
    )


def _effects(step: Step, mark: _Mark, interpreter: ModuleInterpreter, *, first: bool) -> None:
    """Record what the step just run added (everything past `mark`)."""
    analysis: ModuleAnalysis = interpreter.analysis
    for name in _LISTS:
        added = getattr(analysis, name)[mark.lists[name] :]
        if added:  # most steps append to none of the lists: replays skip them
            step.appended[name] = added
    if len(analysis.events) > mark.events:
        step.events = list(analysis.events)[mark.events :]
    if len(analysis.opaque_with_training_state) > len(mark.opaque):
        step.opaque_with_training_state = analysis.opaque_with_training_state - mark.opaque
    step.carry_reads = [
        (carry, reads[mark.carry_reads.get(carry, 0) :])
        for carry, reads in analysis.carry_reads.items()
        if len(reads) > mark.carry_reads.get(carry, 0)
    ]
    step.summaries = list(interpreter.summaries.items())[mark.summaries :]
    step.classes = list(interpreter.classes.items())[mark.classes :]
    if first:
        step.globals = interpreter.globals  # the checker of these names starts afresh after
    else:
        step.verdicts = list(_verdicts(interpreter).items())[mark.verdicts :]
    step.notes = interpreter.call_sites.log[mark.notes :]


def _replay(step: Step, interpreter: ModuleInterpreter) -> None:
    """Append the effects of `step` as the step itself would."""
    analysis = interpreter.analysis
    for name, added in step.appended.items():
        getattr(analysis, name).extend(added)
    for event in step.events:
        analysis.events.add(event)
    analysis.opaque_with_training_state.update(step.opaque_with_training_state)
    for carry, reads in step.carry_reads:
        analysis.carry_reads.setdefault(carry, []).extend(reads)
    interpreter.summaries.update(step.summaries)
    interpreter.classes.update(step.classes)
    if step.globals is not None:
        interpreter.globals = step.globals
    if step.verdicts:
        interpreter.class_check.verdicts.update(step.verdicts)
    for note in step.notes:
        interpreter.call_sites.renote(note)
