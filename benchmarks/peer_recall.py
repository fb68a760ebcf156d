"""GradGuard and torch-preflight on the labelled corpus, in the categories both claim.

    python benchmarks/peer_recall.py [PATH-TO-torch-preflight]

torch-preflight (PyPI, a static training-code linter) is installed apart, never as a project
dependency: `python -m venv /tmp/tp && /tmp/tp/bin/pip install torch-preflight`. Shared
categories: a graph kept alive by accumulation or storage (its TG001 ~ GG203/GG204),
evaluation without no_grad (TG002 ~ GG204) and a missing zero_grad (TG003 ~ GG601).

A corpus line marked `# expect: GG203` (or GG204, GG601) is a positive of its category; a
peer finding counts for it when it falls within three lines of the marker. Peer findings in
a shared category away from every positive are listed as "elsewhere" (the corpus's
unmarked lines are negatives, so these are false positives unless the corpus misses a bug).
Development benchmark only: CI does not install the peer.
"""

from __future__ import annotations

import collections
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from gradguard.core.engine import check_source

ROOT = Path(__file__).resolve().parent.parent
CATEGORIES = {"GG203": "graph kept alive", "GG204": "graph kept alive", "GG601": "zero_grad"}
PEER = {"TG001": "graph kept alive", "TG002": "graph kept alive", "TG003": "zero_grad"}
_MARKER = re.compile(r"#\s*expect:\s*(GG\d{3}(?:\s*,\s*GG\d{3})*)\s*$")
WINDOW = 3


def positives(path: Path) -> list[tuple[int, str]]:
    """(line, category) of every marked positive of a shared category."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = _MARKER.search(line)
        if match:
            for code in re.findall(r"GG\d{3}", match.group(1)):
                if code in CATEGORIES:
                    found.append((number, CATEGORIES[code]))
    return found


def peer_findings(peer: str, path: Path) -> list[tuple[int, str]]:
    """(line, category) of the peer's findings in a shared category."""
    done = subprocess.run(
        [peer, "check", "-f", "json", "--select", ",".join(PEER), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        data = json.loads(done.stdout or "[]")
    except json.JSONDecodeError:
        return []
    found = []
    for item in data.get("diagnostics", []) if isinstance(data, dict) else []:
        code, line = item.get("code"), item.get("line")
        if code in PEER and isinstance(line, int):
            found.append((line, PEER[code]))
    return found


def ours(path: Path) -> list[tuple[int, str]]:
    """(line, category) of GradGuard's findings in a shared category."""
    result = check_source(path.read_text(encoding="utf-8"), path=str(path))
    return [
        (f.range.start.line + 1, CATEGORIES[f.code])
        for f in result.findings
        if f.code in CATEGORIES
    ]


def main(argv: list[str]) -> int:
    peer = argv[0] if argv else shutil.which("torch-preflight")
    if peer is None or not Path(peer).exists():
        print("torch-preflight is not installed (see this script's docstring)", file=sys.stderr)
        return 2
    caught: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    elsewhere: collections.Counter[str] = collections.Counter()
    for path in sorted((ROOT / "tests" / "corpus").rglob("*.py")):
        marked = positives(path)
        for tool, found in (
            ("torch-preflight", peer_findings(peer, path)),
            ("GradGuard", ours(path)),
        ):
            for line, category in marked:
                if any(abs(line - f) <= WINDOW and c == category for f, c in found):
                    caught[tool, category] += 1
            for line, category in found:
                if not any(abs(line - m) <= WINDOW and c == category for m, c in marked):
                    elsewhere[tool, category] += 1
        for _, category in marked:
            total[category] += 1
    print("| Category | positives | GradGuard | torch-preflight | elsewhere: GradGuard / peer |")
    print("|---|---:|---:|---:|---:|")
    for category in sorted(total):
        print(
            f"| {category} | {total[category]} | {caught['GradGuard', category]} | "
            f"{caught['torch-preflight', category]} | {elsewhere['GradGuard', category]} / "
            f"{elsewhere['torch-preflight', category]} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
