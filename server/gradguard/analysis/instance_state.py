"""What `self.<x>` holds for one instance, from the flags its construction passes.

`Block(64, 128, first=False)` and `Block(128, 128, first=True)` build two instances of one
class; `__init__` keeps `self.first = first`. Joined over the class's constructions the
attribute is unknown, so code reading it (`if self.first: x = self.act(x)`) runs either
way. For one instance it is certain: the arguments its own construction passed are what
`__init__` ran with, whatever other constructions (here or in an importer) pass.

The facts of one construction are those `call_sites` records for that call (every
interpretation of it joined, so a construction in a loop passing `i == 0` is unknown).
A class qualifies when its `__init__` is a constructor candidate whose every construction
was seen and mapped (`CallSites.facts`); an instance is told apart from the class only by
the known bools (flags) its construction passes where the class-level facts hold no such
bool (`distinct_flags`): numbers and data add facts the class level already joins, while a
flag decides which code runs. Instances whose constructions pass the same flags share one
view (`ClassInfo.flags`), so the extra work is bounded by the distinct flag sets.

What reads it: a construction of a module class builds its `ModuleRef` on that view
(`ModuleInterpreter.instance_info`), and a call of such an instance runs `forward` with
`self` as that view (`ModuleInterpreter.instance_summary`), records nothing of its own, and
hands the caller only the in-place changes of what its result saved (`changed_in_result`).
An instance whose construction is not known (a parameter, a container's element, a
factory's result) is the class as every instance sees it, as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradguard.analysis.call_sites import CallerFacts

# Flags by parameter name, sorted: the key of one instance view (`ClassInfo.flags`).
Flags = tuple[tuple[str, bool], ...]

# How many distinct flag sets of one class get views of their own (the rest share the
# class's): each costs a run of `__init__` and of the `forward` its instances call.
MAX_VIEWS = 4


def distinct_flags(site: CallerFacts, joined: CallerFacts) -> Flags:
    """The bools `site` passes for parameters where `joined` (every construction's facts,
    as the class learns them) holds no bool: what sets this instance apart."""
    found = []
    for name, value in site.parameters.items():
        if "." in name or type(value.const) is not bool:
            continue
        known = joined.parameters.get(name)
        if known is not None and type(known.const) is bool:
            continue
        found.append((name, value.const))
    return tuple(sorted(found))


def instance_sites(
    by_call: Mapping[int, CallerFacts | None], joined: CallerFacts
) -> tuple[tuple[int, CallerFacts], ...]:
    """The constructions (by id of the call) whose flags set their instance apart from the
    class (`distinct_flags`), with that construction's own facts; at most `MAX_VIEWS`
    distinct flag sets, in the file's order of first interpretation."""
    kept: list[tuple[int, CallerFacts]] = []
    views: set[Flags] = set()
    for call, facts in by_call.items():
        if facts is None:
            return ()
        flags = distinct_flags(facts, joined)
        if not flags:
            continue
        if flags not in views and len(views) >= MAX_VIEWS:
            continue
        views.add(flags)
        kept.append((call, facts))
    return tuple(kept)
