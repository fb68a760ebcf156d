"""Memory is given back when analyses pause, never while one runs (`lsp.housekeeping`)."""

from __future__ import annotations

import ast
import asyncio
import gc
import weakref

from gradguard.lsp.housekeeping import Housekeeping, release_memory

PAUSE = 0.05


def test_memory_is_given_back_once_after_a_pause() -> None:
    async def scenario() -> Housekeeping:
        keeper = Housekeeping(lambda: False, idle_after_s=PAUSE)
        for _ in range(5):  # five analyses in a row: typing, no pause yet
            keeper.worked()
            await asyncio.sleep(PAUSE / 5)
        assert keeper.releases == 0
        await asyncio.sleep(PAUSE * 3)
        return keeper

    assert asyncio.run(scenario()).releases == 1


def test_nothing_is_given_back_while_an_analysis_runs() -> None:
    running = [True]

    async def scenario() -> Housekeeping:
        keeper = Housekeeping(lambda: running[0], idle_after_s=PAUSE)
        keeper.worked()
        await asyncio.sleep(PAUSE * 4)
        assert keeper.releases == 0  # it waited again each time it found work going on
        running[0] = False
        await asyncio.sleep(PAUSE * 3)
        return keeper

    assert asyncio.run(scenario()).releases == 1


def test_a_stopped_housekeeper_gives_nothing_back() -> None:
    async def scenario() -> Housekeeping:
        keeper = Housekeeping(lambda: False, idle_after_s=PAUSE)
        keeper.worked()
        keeper.stop()
        await asyncio.sleep(PAUSE * 3)
        return keeper

    assert asyncio.run(scenario()).releases == 0


def test_release_collects_cyclic_garbage() -> None:
    """Syntax trees whose nodes point back at each other are only freed by a collection."""
    gc.disable()
    try:
        tree = ast.parse("x = 1\n" * 50)
        for node in ast.walk(tree):
            if not isinstance(node, ast.expr_context):  # `Load()` and `Store()` are shared
                node.parent = tree  # type: ignore[attr-defined]
        alive = weakref.ref(tree)
        del tree, node
        kept = alive() is not None  # the cycle keeps it
        release_memory()
        freed = alive() is None
    finally:
        gc.enable()
    assert kept and freed
