"""Memory given back to the system when the editor pauses.

An analysis of a large file allocates millions of small objects and frees them again, and
some of what it frees is cyclic (syntax trees whose nodes point at each other through the
analysis's records), which only Python's oldest-generation collection reclaims, and that
runs rarely. Freed memory also stays in the process: the C allocator keeps the pages of
its heap mapped. Over an editing session the server's resident memory therefore follows
the peaks of past analyses, not what it holds.

`Housekeeping` waits for a pause: `IDLE_AFTER_S` seconds after the last analysis, with no
analysis running, it collects garbage (`gc.collect`) and asks glibc to return free pages
(`malloc_trim`; skipped where the C library has none). Both take a few milliseconds on the
event loop, never during typing. `benchmarks/bench_memory.py` measures the effect.

While the user types, the collections Python starts by itself are kept off the kept
analyses: after each check, what is alive is what the next edit reuses (the document's tree
and analysis), so it is frozen (`gc.freeze`) and the collections of the next checks walk
only what they allocated. A full collection walking a 5,000-line file's tree costs tens of
milliseconds, once in every few dozen keystrokes. The check runs with the collector paused
until then, so the collection its allocations start finds them frozen too (a young
collection walking a large analysis's survivors cost about a millisecond per keystroke).
Only a check that reused the last analysis freezes: it leaves almost no cyclic garbage
(about one object per edit), and whatever was frozen with it is collected at the next
pause, after `FREEZE_LIMIT` such checks, or after any other check (which unfreezes: a whole
analysis leaves garbage).
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

# Seconds without an analysis before memory is given back.
IDLE_AFTER_S = 1.5

# Checks whose survivors are frozen before the collector sees the whole heap again.
FREEZE_LIMIT = 64


class Housekeeping:
    """Gives memory back once the server has been idle for `IDLE_AFTER_S` seconds."""

    def __init__(self, busy: Callable[[], bool], idle_after_s: float = IDLE_AFTER_S) -> None:
        self._busy = busy  # True while an analysis runs or waits
        self._idle_after_s = idle_after_s
        self._timer: asyncio.TimerHandle | None = None
        self.releases = 0  # how many times memory was given back (for tests)
        self._frozen_checks = 0  # checks frozen since the collector last saw everything

    def checked(self, *, reused: bool) -> None:
        """A check just ended (in the thread that ran it). When it `reused` the document's
        last analysis (an edit inside a function, or of comments), freeze what is alive, so
        the collections of the next checks skip it (see the module docs); every
        `FREEZE_LIMIT`-th such check, and after any other check (a whole analysis leaves
        cyclic garbage), unfreeze instead, so Python's own collections see everything."""
        self._frozen_checks += 1
        if reused and self._frozen_checks < FREEZE_LIMIT:
            gc.freeze()
        else:
            gc.unfreeze()
            self._frozen_checks = 0

    def worked(self) -> None:
        """An analysis finished: (re)start the wait for a pause. Call on the event loop."""
        if self._timer is not None:
            self._timer.cancel()
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self._idle_after_s, self._idle)

    def stop(self) -> None:
        """Shutdown: no release is pending any more."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _idle(self) -> None:
        self._timer = None
        if self._busy():
            self.worked()  # the work that is running will end in an analysis: wait again
            return
        release_memory()
        self._frozen_checks = 0
        self.releases += 1


def release_memory() -> None:
    """Collect cyclic garbage (frozen objects included) and return the C heap's free pages
    to the system."""
    gc.unfreeze()
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, looked up in the running process, or None where the C library
    has none (macOS, musl) or the lookup is not possible (Windows)."""
    import ctypes  # only here: the import costs start-up time every other path would pay

    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        log.debug("no malloc_trim in this process")
        return None
    return trim
