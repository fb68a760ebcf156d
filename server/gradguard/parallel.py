"""Spreading files over worker processes for `gradguard check --jobs N`.

Outcomes come back in the order of the tasks, whatever order the workers finish in, so the
report does not depend on `--jobs`. Small runs are not worth a pool (starting one costs
about as much as checking a few files): a worker is started for every `MIN_FILES_PER_WORKER`
files, up to N, and one worker means checking in this process. Larger files are handed out
first, so one big file does not start last and finish long after the others.

A worker checks a file with the same function as this process (`file_check.check_file`):
an error while checking is caught there and reported as an internal error, exactly as in
process. A worker process that dies (a crash in the interpreter, killed for memory) takes
the pool down; every file it left unfinished is then checked again alone in a new process,
and a file that kills that one too is reported as an internal error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gradguard.file_check import FileTask, check_file

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from gradguard.outcome import FileOutcome

MIN_FILES_PER_WORKER = 4
LOST = "internal error: the worker process checking this file stopped unexpectedly (please report)"


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, not the machine's count)."""
    process_cpu_count = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if process_cpu_count is not None:
        count: int | None = process_cpu_count()
    elif hasattr(os, "sched_getaffinity"):
        count = len(os.sched_getaffinity(0))
    else:
        count = os.cpu_count()
    return max(1, count or 1)


def worker_count(jobs: int, tasks: int) -> int:
    """How many worker processes `tasks` files are worth under `--jobs jobs` (1: none)."""
    return max(1, min(jobs, tasks // MIN_FILES_PER_WORKER))


def check_all(tasks: Sequence[FileTask], jobs: int) -> list[FileOutcome]:
    """Check every task, in process or in up to `jobs` workers; outcomes in task order."""
    workers = worker_count(jobs, len(tasks))
    if workers <= 1:
        return [check_file(task) for task in tasks]
    return _check_in_pool(tasks, workers)


def _check_in_worker(task: FileTask) -> list[Any]:
    """The worker's side: check one file, return its outcome as plain data."""
    from gradguard.outcome import to_plain

    return to_plain(check_file(task))


def _check_in_pool(tasks: Sequence[FileTask], workers: int) -> list[FileOutcome]:
    from gradguard.outcome import ERROR, FileOutcome, Message

    largest_first = sorted(range(len(tasks)), key=lambda i: -len(tasks[i].source.text))
    outcomes: dict[int, FileOutcome] = {}
    lost = _run(tasks, largest_first, workers, outcomes)
    for index in lost:  # alone, so a file that kills its process takes only itself down
        if _run(tasks, [index], 1, outcomes):
            outcomes[index] = FileOutcome((Message(ERROR, LOST, lasting=False),))
    return [outcomes[i] for i in range(len(tasks))]


def _run(
    tasks: Sequence[FileTask], indices: list[int], workers: int, outcomes: dict[int, FileOutcome]
) -> list[int]:
    """Check `tasks[i]` for each index in a pool of `workers`; fill `outcomes`, return the
    indices whose worker died before answering."""
    from concurrent.futures.process import BrokenProcessPool

    from gradguard.outcome import from_plain

    lost: list[int] = []
    executor = _executor(workers)
    try:
        futures = [(i, executor.submit(_check_in_worker, tasks[i])) for i in indices]
        for index, future in futures:
            try:
                outcomes[index] = from_plain(future.result())
            except BrokenProcessPool:
                lost.append(index)
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    executor.shutdown()
    return lost


def _executor(workers: int) -> Executor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # Forking is the cheapest start on Linux (the workers inherit the imported modules and
    # this process has no threads); elsewhere the platform's default method is used.
    fork = sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if fork else None)
    return ProcessPoolExecutor(max_workers=workers, mp_context=context)
