"""Whole-file syntax facts of an edited file, from the last analysis's and the edited part.

An edit confined to one function (`gradguard.analysis.incremental`) leaves every other
statement of the module as it was. A fact that is the union (or the `any`) of what each
statement gives is then the old fact when the edited function gives the same before and
after: `FileSyntax` facts made that way need not scan the whole module again, which on a
5,000-line file cost more than the rest of the edit's checks of it.

Each function here answers one fact for the new tree from the old one, or None when the
edited function's part differs (the caller then computes it for the whole file, and the
edit's checks compare it with the old fact as before).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gradguard.analysis import parameters as params
from gradguard.analysis.imports import WALRUS_REACH
from gradguard.analysis.interpreter.call_order import names_called
from gradguard.analysis.interpreter.file_syntax import ScopeIndex, index_scopes, mentions_freezing
from gradguard.analysis.model import FunctionNode
from gradguard.analysis.node_cache import last_calls


@last_calls(2)
def lines_of(text: str) -> list[str]:
    """`text.split("\\n")`, kept for the last two texts asked about (an edit's checks split
    the old and the new text many times over). Shared: never change it."""
    return text.split("\n")


@dataclass(frozen=True)
class EditedPart:
    """The edited function: its old definition (a copy holding the old fields), the
    definition node now holding the new code, both texts, and the definitions nested in
    it, old and new, paired."""

    old: FunctionNode
    new: FunctionNode
    old_text: str
    text: str
    # id() of each definition nested in the new function -> id() of the old one it stands for.
    keys: dict[int, int]
    # The definitions nested in the new function (walk order), and in the old one.
    nested: tuple[FunctionNode, ...]
    old_nested: tuple[FunctionNode, ...]

    def part(self, new: bool) -> ast.Module:
        """A module holding the edited function alone, new or old."""
        return ast.Module([self.new if new else self.old], [])

    def span(self) -> tuple[int, int] | None:
        """The first and last line of the function (decorators included), when the old
        and the new definition span the same lines; else None."""
        old, new = ((_first_line(d), d.end_lineno or d.lineno) for d in (self.old, self.new))
        return old if old == new else None

    def lines(self, new: bool) -> str | None:
        """The text of the function's lines, after as many newlines as precede them (its
        tree's line numbers are right in it); None when old and new spans differ."""
        span = self.span()
        if span is None:
            return None
        start, end = span
        lines = lines_of(self.text if new else self.old_text)
        return "\n" * (start - 1) + "\n".join(lines[start - 1 : end])


def walrus_names(old: frozenset[str], edit: EditedPart) -> frozenset[str] | None:
    """`imports.walrus_names` of the new text from the old text's, when no `:=` is in the
    function's lines, old or new, nor starts in the 80 characters after them; else None.

    Each `:=` gives the name in the 80 characters before it. The function's lines start
    and end at a line break, so no `:=` straddles them; one before them reads only text
    before them, one 80 characters or more after them only text after them: the same in
    both texts, which then have the same `:=`, each with the same name."""
    span = edit.span()
    if span is None:
        return None
    start, end = span
    new_lines = lines_of(edit.text)
    for lines in (lines_of(edit.old_text), new_lines):
        if any(":=" in line for line in lines[start - 1 : end]):
            return None
    following = ""
    for line in new_lines[end:]:
        following += line + "\n"
        if len(following) > WALRUS_REACH + 1:
            break
    return None if ":=" in following[: WALRUS_REACH + 1] else old


def _first_line(function: FunctionNode) -> int:
    return min([function.lineno, *(d.lineno for d in function.decorator_list)])


def scopes(old: ScopeIndex, edit: EditedPart) -> ScopeIndex | None:
    """The scope index of the new tree from the old one, when the edited function's own
    index (its nested definitions, their scopes, the names it declares `global`) is the
    same before and after but for the identity of its nested definitions; else None."""
    old_part, new_part = edit.part(False), edit.part(True)
    before, after = index_scopes(old_part), index_scopes(new_part)
    # Both sides spelt alike: the old nested definitions' ids, the edited definition and
    # the module around it by role.
    old_names = {id(edit.old): -1, id(old_part): -2}
    new_names = {**edit.keys, id(edit.new): -1, id(new_part): -2}

    def spelt(names: dict[int, int], index: ScopeIndex) -> tuple[object, ...]:
        functions = [names.get(id(f), id(f)) for f in index.functions]
        parents = {names.get(k, k): names.get(id(v), id(v)) for k, v in index.parent_scope.items()}
        return functions, parents, index.declared_global

    if spelt(new_names, after) != spelt(old_names, before):
        return None
    nested = {edit.keys[id(f)]: f for f in after.functions if f is not edit.new}
    parents = {k: v for k, v in old.parent_scope.items() if k not in nested}
    parents.update((k, v) for k, v in after.parent_scope.items() if k != id(edit.new))
    functions = [nested.get(id(f), f) for f in old.functions]
    return ScopeIndex(functions, parents, set(old.declared_global))


def order(old: list[FunctionNode], edit: EditedPart) -> list[FunctionNode] | None:
    """`callees_first` of the new tree from the old order: the same when the edited
    function and each definition nested in it call the same names (as the text shows them,
    `names_called`), the old nested definitions standing for the new ones; else None."""
    pairs = zip((edit.old, *edit.old_nested), (edit.new, *edit.nested), strict=True)
    old_lines, new_lines = lines_of(edit.old_text), lines_of(edit.text)
    for before, after in pairs:
        if _names_called(before, old_lines) != _names_called(after, new_lines):
            return None
    renamed = {edit.keys[id(f)]: f for f in edit.nested}
    return [renamed.get(id(f), f) for f in old]


def _names_called(function: FunctionNode, lines: list[str]) -> tuple[str, ...]:
    return names_called("\n".join(lines[function.lineno - 1 : function.end_lineno]))


def freezes(old: bool | None, edit: EditedPart) -> bool | None:
    """`mentions_freezing` of the new tree: the old answer (None: not computed) when the
    edited function's part gives the same before and after."""
    if old is None or mentions_freezing(edit.part(False)) != mentions_freezing(edit.part(True)):
        return None
    return old


def unfreezes(old: bool | None, edit: EditedPart) -> bool | None:
    """`parameters.may_unfreeze` of the new text and tree: the old answer (None: not
    computed) when the edited function's lines give the same before and after."""
    if old is None:
        return None
    before, after = edit.lines(False), edit.lines(True)
    if before is None or after is None:
        return None
    if params.may_unfreeze(before, edit.part(False)) != params.may_unfreeze(after, edit.part(True)):
        return None
    return old
