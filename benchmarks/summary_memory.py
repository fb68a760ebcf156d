"""What one kept summary of the project index holds, part by part, per line of its file.

    PYTHONPATH=server .venv/bin/python benchmarks/summary_memory.py TREE FILE [FILE ...]

Each FILE (a path inside TREE, e.g. `modeling_utils.py` of an unpacked transformers wheel,
see `bench_project_index.py`) is summarised in a fresh `ProjectIndex`, as an importer would
have it summarised. Printed: the memory tracemalloc saw the index keep, and the kept summary
walked object by object (`sys.getsizeof`, each object counted once, in this order): its
syntax tree, then each attribute of its interpreter and of the interpreter's `FileSyntax`,
then what the index keeps besides (sources, outlines of the import graph). Numbers feed
`benchmarks/results/project_index.md`.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
import types
from pathlib import Path

from gradguard.project.index import ProjectIndex

_SKIPPED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)


def deep_size(root: object, seen: set[int]) -> int:
    """Bytes of the objects reachable from `root` not in `seen` (which they join)."""
    total = 0
    stack = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, _SKIPPED):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        stack.extend(gc.get_referents(item))
    return total


def report(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n") + 1
    index = ProjectIndex(track_facts=True)
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    module = index.module(path)
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - before
    print(f"{path.name}: {lines:,} lines; the index keeps {kept / lines:,.0f} B a line")
    if module is None:
        print("  not summarised")
        return
    interpreter = module.interpreter
    # The index itself is walked last: what the summary holds first.
    seen = {id(index)} | {id(m.interpreter.imports) for m in index._modules.values() if m}
    parts: list[tuple[str, object]] = [("tree", interpreter.tree)]
    parts += [(f"interpreter.{k}", v) for k, v in sorted(vars(interpreter).items())]
    parts += [(f"syntax.{k}", v) for k, v in sorted(vars(interpreter.syntax).items())]
    parts += [("facts", module.facts), ("index.sources", index._sources)]
    parts += [("index.outlines", index._outlines), ("index, the rest", vars(index))]
    for name, value in parts:
        size = deep_size(value, seen)
        if size >= 4096:
            print(f"  {name:28} {size / 1024:9,.0f} KiB {size / lines:7,.0f} B/line")


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    tree = Path(argv[0]).resolve()
    tracemalloc.start()
    for name in argv[1:]:
        report(tree / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
