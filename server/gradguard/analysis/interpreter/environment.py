"""Environments and grad modes, and how they join where control flow meets."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from gradguard.analysis import narrowing
from gradguard.analysis.graph import GRAPH_STATE_KEY, SavedNode, Saves
from gradguard.analysis.model import (
    LoopNode,
)
from gradguard.analysis.values import (
    UNKNOWN,
    GradOff,
    Kind,
    Value,
    evolve,
    join,
)

Env = dict[str, Value]


@dataclass(frozen=True)
class GradMode:
    """Gradient recording at a program point: on, off (and why), or unknown."""

    enabled: bool | None
    off: GradOff | None = None
    # Unknown, but decided by a test of one name: `torch.set_grad_enabled(phase == "train")`
    # records exactly when `phase == "train"`; a branch that knows `phase == "val"` runs
    # with recording off, switched off at `condition_off`.
    condition: narrowing.Condition | None = None
    condition_off: GradOff | None = None

    def on_branch(self, facts: narrowing.Facts) -> GradMode:
        """This mode on a branch where `facts` hold."""
        if self.condition is None:
            return self
        decided = facts.decides(self.condition)
        if decided is None:
            return self
        return GRAD_ON if decided else GradMode(False, self.condition_off)


GRAD_ON = GradMode(True)


GRAD_UNKNOWN = GradMode(None)


class Frame:
    """Push a control-flow frame for the duration of a `with` block (cheaper than
    `contextlib.contextmanager`, which this hot path used to pay for)."""

    __slots__ = ("entry", "frames")

    def __init__(self, frames: list[tuple[str, ast.AST]], entry: tuple[str, ast.AST]) -> None:
        self.frames = frames
        self.entry = entry

    def __enter__(self) -> None:
        self.frames.append(self.entry)

    def __exit__(self, *exc: object) -> None:
        self.frames.pop()


@dataclass
class LoopFrame:
    node: LoopNode
    breaks: list[Env | None] = field(default_factory=list)
    continues: list[Env | None] = field(default_factory=list)


# What reading a dotted key gives on a path whose environment does not hold it (None: not
# known without evaluating it there; see `ExpressionEvaluator.kept_attribute`).
KeptRead = Callable[[str, Env], Value | None]

# What a `KeptRead` gives for an attribute certainly never set on that path (a fresh object
# in `__init__`): reading it there raises AttributeError, so wherever a read succeeds it
# holds the other path's value.
UNSET = Value(kind=Kind.OTHER)


def join_env(
    a: Env | None,
    b: Env | None,
    *,
    absent_is_unbound: bool = False,
    kept: KeptRead | None = None,
) -> Env | None:
    """Merge two environments; `None` stands for an unreachable path.

    With `absent_is_unbound`, a plain name bound on one path only keeps that path's value:
    on the other path it is unbound, and reading it there raises NameError, so wherever a
    read succeeds it holds this value (`if c: y = f()`, a name bound in a loop's body). Only
    for joins of paths through one function's statements, where every binding statement
    the name could have met is in the environment (see `ModuleInterpreter.star_imports`).

    With `kept`, an attribute key (`self.centers`) held on one path only is joined with
    what reading it gives on the other: the value its class keeps, when `kept` knows it
    (an item stored into a buffer inside a loop that may not run leaves the buffer).
    """
    if a is None:
        return None if b is None else dict(b)
    if b is None:
        return dict(a)
    merged: Env = {}
    for key, left in a.items():
        right = b.get(key)
        if right is left:
            merged[key] = left
        elif right is not None:
            merged[key] = join(left, right)
        else:
            merged[key] = _one_sided(key, left, b, absent_is_unbound, kept)
    for key in b.keys() - a.keys():
        merged[key] = _one_sided(key, b[key], a, absent_is_unbound, kept)
    return merged


def _one_sided(
    key: str, value: Value, other: Env, absent_is_unbound: bool, kept: KeptRead | None
) -> Value:
    """The join of `value`, what `key` holds on one path, with the path `other` lacking it."""
    if key.isidentifier():
        return value if absent_is_unbound else UNKNOWN
    read = kept(key, other) if kept is not None else None
    if read is UNSET:
        return value
    return join(value, read) if read is not None else UNKNOWN


def merge_branch_graphs(stmt: ast.If, body: Env, orelse: Env, merged: Env) -> None:
    """Values whose history runs through different saving nodes on the two branches of one
    `if` (`out = data_parallel(self.main, x)` or `out = self.main(x)`) still certainly run
    through *the one the branch took*. One node per `if` stands for that choice: every
    value joined here shares it, because one branch was taken for all of them."""
    choice: SavedNode | None = None
    for key, value in merged.items():
        left, right = body.get(key), orelse.get(key)
        if left is None or right is None or left is right or key == GRAPH_STATE_KEY:
            continue  # (what a backward freed is certain only if freed on both branches)
        for field_name in ("graph", "saved_in"):
            a, b = getattr(left, field_name), getattr(right, field_name)
            if a and b and not (a <= b or b <= a):
                if choice is None:
                    choice = SavedNode(stmt, Saves.OTHER)
                joined = getattr(value, field_name) | {choice}
                value = evolve(value, **{field_name: joined})
        merged[key] = value


def join_envs(
    envs: Iterable[Env | None], *, absent_is_unbound: bool = False, kept: KeptRead | None = None
) -> Env | None:
    """Merge many environments (see `join_env`)."""
    result: Env | None = None
    first = True
    for env in envs:
        if first:
            result = None if env is None else dict(env)
        else:
            result = join_env(result, env, absent_is_unbound=absent_is_unbound, kept=kept)
        first = False
    return result
