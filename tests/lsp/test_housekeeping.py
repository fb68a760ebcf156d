"""Memory is given back when analyses pause, never while one runs (`lsp.housekeeping`)."""

from __future__ import annotations

import ast
import asyncio
import gc
import weakref

from gradguard.lsp.housekeeping import FREEZE_LIMIT, Housekeeping, release_memory

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


def test_checks_freeze_what_is_alive_and_a_limit_unfreezes_it() -> None:
    keeper = Housekeeping(lambda: False, idle_after_s=PAUSE)
    try:
        kept = [object() for _ in range(100)]  # noqa: F841 - alive across the checks
        keeper.checked(reused=True)
        assert gc.get_freeze_count() > 0
        for _ in range(FREEZE_LIMIT - 2):
            keeper.checked(reused=True)
        assert gc.get_freeze_count() > 0
        keeper.checked(reused=True)  # the limit: the collector sees everything again
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()


def test_a_whole_analysis_unfreezes() -> None:
    keeper = Housekeeping(lambda: False, idle_after_s=PAUSE)
    try:
        keeper.checked(reused=True)
        assert gc.get_freeze_count() > 0
        keeper.checked(reused=False)
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()


def test_release_collects_cyclic_garbage_frozen_by_checks() -> None:
    keeper = Housekeeping(lambda: False, idle_after_s=PAUSE)
    try:
        cycle: list[object] = []
        cycle.append(cycle)
        alive = weakref.ref(_Box(cycle))
        keeper.checked(reused=True)  # frozen while alive, garbage right after
        del cycle
        gc.collect()
        assert alive() is not None  # a frozen cycle is never collected by Python itself
        release_memory()
        assert alive() is None and gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()


class _Box:
    """A weakly referenceable object in a reference cycle."""

    def __init__(self, cycle: list[object]) -> None:
        cycle.append(self)
