"""The editor snippets of README.md, read by their `<!-- snippet: NAME -->` marker, so that
the tests run exactly what users copy."""

from __future__ import annotations

import re
import stat
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
SERVER_SOURCES = Path(__file__).resolve().parents[1] / "server"
_SNIPPET = re.compile(r"<!-- snippet: ([\w.-]+) -->\n```\w*\n(.*?)\n```", re.S)


def snippet(name: str) -> str:
    """The fenced block right after `<!-- snippet: name -->` in README.md."""
    found = {m.group(1): m.group(2) for m in _SNIPPET.finditer(README.read_text("utf-8"))}
    assert name in found, f"README.md has no snippet {name!r} (has {sorted(found)})"
    return found[name] + "\n"


def gradguard_on_path(folder: Path) -> Path:
    """A `gradguard` command in `folder` running this checkout with this interpreter."""
    folder.mkdir(parents=True, exist_ok=True)
    command = folder / "gradguard"
    command.write_text(
        f'#!/bin/sh\nPYTHONPATH="{SERVER_SOURCES}" exec "{sys.executable}" -m gradguard "$@"\n',
        encoding="utf-8",
    )
    command.chmod(command.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder
