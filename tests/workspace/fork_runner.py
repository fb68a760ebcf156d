"""Run several training scripts under one torch import: `python fork_runner.py JOBS.json`.

Importing torch takes seconds; each script runs in a process forked after that import, with
its own working folder, import path and output files, exactly as `python SCRIPT` would run
it (as `__main__`). JOBS.json lists objects with `script`, `cwd`, `path` (the folders put
first on the import path), `stdout` and `stderr` (files to write); the exit status of each
run is written next to its stdout as `<stdout>.status`.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import traceback

import torch  # noqa: F401  (imported once, before forking)


def _run(job: dict[str, object]) -> None:
    """In the child: become `python SCRIPT` and never return."""
    code = 0
    with open(str(job["stdout"]), "w") as out, open(str(job["stderr"]), "w") as err:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        sys.stdout = os.fdopen(1, "w", closefd=False)
        sys.stderr = os.fdopen(2, "w", closefd=False)
        script = str(job["script"])
        os.chdir(str(job["cwd"]))
        paths = [str(p) for p in job["path"]]  # type: ignore[attr-defined]
        sys.path[:0] = [os.path.dirname(script), *paths]
        sys.argv = [script]
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def main() -> None:
    with open(sys.argv[1]) as handle:
        jobs = json.load(handle)
    for job in jobs:
        pid = os.fork()
        if pid == 0:
            _run(job)
        _, status = os.waitpid(pid, 0)
        with open(f"{job['stdout']}.status", "w") as handle:
            handle.write(str(os.waitstatus_to_exitcode(status)))


if __name__ == "__main__":
    main()
