"""`python -m gradguard` is the same as the `gradguard` command."""

import os
import sys

# `python -m` puts the current directory first on sys.path. In a workspace that holds a
# `json.py`, `tempfile.py` or `tomllib.py`, every later import of that name would run the
# user's file: GradGuard never runs user code, so the directory is dropped before anything
# else is imported (the `gradguard` script and `python -P` never add it).
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from gradguard.cli import main

# Guarded: a worker process started with the "spawn" method imports this module again (as
# `__mp_main__`), and must not run the command line a second time.
if __name__ == "__main__":
    raise SystemExit(main())
