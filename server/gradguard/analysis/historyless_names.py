"""Names whose values certainly carry no autograd history, wherever they are read.

`with torch.no_grad(): target = reward + gamma * target_net(next_obs).max(1).values` binds
a tensor with no history: a loss computed from `target` gets no gradient through it, so
nothing `target` was computed from (`target_net`'s parameters) is reached by a backward of
that loss. `NameFlow` cannot say so: it follows values, and a value computed under no_grad
(or by `.detach()` of a tensor with history, by a factory...) may still be computed from
anything, so `NameFlow.reaches` goes on through it. Cutting there is right for autograd
only: the name holds a tensor made from the module's output, not the module.

A name counts when all of this holds (anything else: it does not):

* every binding of it is `name = value`, the name the only target, and each time the
  interpreter's recorded pass ran one of them (at least once; `ModuleAnalysis.bound_values`)
  the value was a tensor or a Python number certainly without history
  (`Value.historyless`: computed under no_grad, detached, converted, a fresh factory
  tensor...);
* it gets values from nothing else (`NameFlow.only_bound`): not a parameter, nothing
  stored into it or changed in place (`target.add_(q)` would give it history), no item
  or attribute assigned.

An assignment the recorded pass never ran (dead code, a function it does not analyse)
leaves its name out. `NameFlow.reaches(keys, ends=...)` stops at these names: the keys it
returns are those a backward of a loss computed from `keys` may send gradients into.
"""

from __future__ import annotations

from gradguard.analysis.model import ModuleAnalysis
from gradguard.analysis.name_flow import Key, NameFlow


def historyless_names(analysis: ModuleAnalysis, flow: NameFlow) -> frozenset[Key]:
    """The keys of every name of the file that certainly holds no autograd history (see
    the module docstring)."""
    verdicts: dict[int, bool] = {}
    for stmt, historyless in analysis.bound_values:
        verdicts[id(stmt)] = verdicts.get(id(stmt), True) and historyless
    found = []
    for key, bindings in flow.bindings.items():
        if not flow.only_bound(key):
            continue
        # Only plain assignments have a verdict (the interpreter records no other binding).
        if all(verdicts.get(id(b.node), False) for b in bindings):
            found.append(key)
    return frozenset(found)
