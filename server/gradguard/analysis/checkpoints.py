"""Which activation-checkpoint calls are certainly reentrant (GG112).

Checked against torch 2.13.0: `torch.utils.checkpoint.checkpoint` without `use_reentrant`
warns and runs the reentrant variant, which rejects keyword arguments meant for the
checkpointed function ("Unexpected keyword arguments").
"""

from __future__ import annotations

import ast

from gradguard.analysis.torch_api import CHECKPOINT_KEYWORDS


def reentrant_keyword(call: ast.Call) -> ast.keyword | bool:
    """For a `checkpoint(fn, ...)` call: its literal `use_reentrant=True` keyword; True when
    the keyword is absent (the reentrant default); False when the variant is not certainly
    reentrant, or when the call passes keywords the reentrant variant rejects (`**kwargs`,
    arguments meant for the function), which makes it raise before running anything."""
    found: ast.keyword | bool = True
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in CHECKPOINT_KEYWORDS:
            return False
        if keyword.arg == "use_reentrant":
            value = keyword.value
            if not (isinstance(value, ast.Constant) and value.value is True):
                return False
            found = keyword
    return found
