"""The language server's check of an edited document, reusing its last analysis.

`check` does what `engine.check_source` does, but analyses through
`gradguard.analysis.incremental.Incremental`, which keeps each open document's last
analysis and, for an edit inside one function, grafts and replays instead of parsing and
analysing the whole file again. It returns None when the text does not parse (the caller
then runs its recovery path) or when anything unexpected happens: the caller's full path is
always the answer of last resort.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from gradguard.analysis.incremental import Incremental, keep_answers
from gradguard.analysis.node_cache import tree_scope
from gradguard.core import engine
from gradguard.core.limits import size_problem
from gradguard.core.prefilter import mentions_torch
from gradguard.core.text import SourceText

if TYPE_CHECKING:
    import ast

    from gradguard.core.engine import CheckResult
    from gradguard.core.settings import Settings

log = logging.getLogger(__name__)


def check(
    incremental: Incremental,
    key: str,
    text: str,
    *,
    path: str | None,
    settings: Settings,
    token: object = None,
) -> CheckResult | None:
    """The findings of document `key` at `text`, as `engine.check_source` gives them; None
    when it does not parse or could not be analysed here (the caller checks it in full)."""
    from gradguard.project.session import project_imports

    if size_problem(text) is not None or not mentions_torch(text):
        incremental.forget(key)
        return None
    source = SourceText(text)

    def parse() -> ast.Module | None:
        tree = engine.parse(source, path or "<unknown>")
        return None if isinstance(tree, engine.ParseError) else tree

    state = incremental.take(key)
    stores = state.stores if state is not None else {}
    with engine.collector_paused(), tree_scope(stores):
        try:
            engine._allow_deep_expressions()
            imports = project_imports()
            done = incremental.analyse(key, state, text, imports, token, parse, stores)
        except RecursionError:
            incremental.forget(key)
            return None
        except Exception:  # never worse than the full path: it reports what went wrong
            log.exception("incremental analysis of %s failed; analysing it in full", key)
            incremental.forget(key)
            return None
        if done is None:
            return None
        tree, analysis, kept = done
        result = engine.check_tree(source, tree, path=path, settings=settings, analysed=analysis)
        kept.checks = state.checks + 1 if state is not None else 1
        keep_answers(tree, stores, kept.checks)
    # Kept only now: the next edit's graft changes the tree the rules just read.
    incremental.keep(key, kept)
    return result
