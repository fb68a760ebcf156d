"""Run example programs under real torch and report how each one ended, as JSON.

Reads `[{"name": ..., "code": ...}, ...]` on stdin and writes `{name: null | "Type: message"}`
to stdout. Each program runs as `__main__` in a fresh namespace inside its own temporary
directory, so torch is imported once for the whole batch.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile


def run(code: str, name: str) -> str | None:
    """Execute `code`; return None when it completes, else "ExceptionType: message"."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, name, "exec"), {"__name__": "__main__"})
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
        finally:
            os.chdir(here)
    return None


def main() -> None:
    import torch

    torch.manual_seed(0)
    programs = json.load(sys.stdin)
    print(json.dumps({p["name"]: run(p["code"], p["name"]) for p in programs}))


if __name__ == "__main__":
    main()
