"""What `self.<x>` holds for one instance, from the settings its construction passes.

`Block(64, 128, first=False)` and `Block(128, 128, first=True)` build two instances of one
class; `__init__` keeps `self.first = first`. Joined over the class's constructions the
attribute is unknown, so code reading it (`if self.first: x = self.act(x)`) runs either
way. For one instance it is certain: the arguments its own construction passed are what
`__init__` ran with, whatever other constructions (here or in an importer) pass.

The facts of one construction are those `call_sites` records for that call (every
interpretation of it joined, so a construction in a loop passing `i == 0` is unknown).
A class qualifies when its `__init__` is a constructor candidate whose every construction
was seen and mapped (`CallSites.facts`); an instance is told apart from the class only by
the known settings its construction passes where the class-level facts hold none: bools,
ints and strings (`distinct_flags`), the values that decide which code runs (`if
self.first:`, `if stride != 1 or cin != cout:`, `if mode == "conv":`, see
`construction_paths` for the `if` statements of `__init__`); tensors and other data add
facts the class level already joins. Instances whose constructions pass the same settings
share one view (`ClassInfo.flags`), so the extra work is bounded by the distinct setting
sets. A construction whose setting is not one known value (a parameter its callers pass
both ways, a number read from the environment) gets no view: its instance is the class.
Two instances built with other settings, joined (a helper given both), are the class
(`ClassInfo.general`).

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

# A known setting a construction passes: a bool, a number or a string (`Value.const`).
Setting = bool | int | str

# Settings by parameter name, sorted: the key of one instance view (`ClassInfo.flags`).
Flags = tuple[tuple[str, Setting], ...]

# How many distinct setting sets of one class get views of their own (the rest share the
# class's): each costs a run of `__init__` and of the `forward` its instances call.
MAX_VIEWS = 4


def distinct_flags(site: CallerFacts, joined: CallerFacts) -> Flags:
    """The known settings (bools, numbers, strings) `site` passes for parameters where
    `joined` (every construction's facts, as the class learns them) holds none: what sets
    this instance apart."""
    found: list[tuple[str, Setting]] = []
    for name, value in site.parameters.items():
        const = value.const
        if "." in name or not isinstance(const, bool | int | str):
            continue
        known = joined.parameters.get(name)
        if known is not None and isinstance(known.const, bool | int | str):
            continue
        found.append((name, const))
    return tuple(sorted(found))


def instance_sites(
    by_call: Mapping[int, CallerFacts | None], joined: CallerFacts
) -> tuple[tuple[int, CallerFacts], ...]:
    """The constructions (by id of the call) whose settings set their instance apart from the
    class (`distinct_flags`), with that construction's own facts; at most `MAX_VIEWS`
    distinct setting sets, in the file's order of first interpretation."""
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
