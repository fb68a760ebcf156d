"""Layout mutants of real programs, and the fix checks run on them (issue 11).

Fix builders broke on layouts the plain examples never have: a form feed before a
statement, a tab after spaces in an indentation, `;` chains, backslash continuations, mixed
line breaks, comments between any two lines, parenthesised `with (...)` headers. Each
mutator here rewrites a program into one of those layouts (or returns None when it finds
no place to); only mutants that still parse are kept. `check_mutant` then applies every
fix the engine offers, one at a time and all together, and counts what went wrong.

Used by `tests/fuzz/test_fix_mutants.py` (a small deterministic sample) and
`benchmarks/fix_fuzz.py` (the long run).
"""

from __future__ import annotations

import ast
import io
import itertools
import logging
import random
import tokenize
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from invariants.checks import check_engine, check_fix, parses

from gradguard.core.engine import check_source
from gradguard.core.rule import all_rules

Mutator = Callable[[str, random.Random], "str | None"]

_SIMPLE = (
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Return,
    ast.Pass,
    ast.Import,
    ast.ImportFrom,
    ast.Delete,
    ast.Assert,
    ast.Raise,
    ast.Break,
    ast.Continue,
)


def seed_programs(root: Path) -> list[tuple[str, str]]:
    """(name, text) of every rule's INVALID examples and every `tests/corpus/**/*.py`."""
    programs = [
        (f"{rule.code}-invalid-{i}", example.code)
        for rule in all_rules()
        for i, example in enumerate(rule.invalid)
    ]
    for path in sorted(root.glob("tests/corpus/**/*.py")):
        programs.append((path.relative_to(root).as_posix(), path.read_text(encoding="utf-8")))
    return programs


# -- mutators ----------------------------------------------------------------------------------


def _tree(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _statement_lines(tree: ast.Module, lines: list[str]) -> list[int]:
    """0-based lines on which a statement starts, with only indentation before it."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            line = lines[node.lineno - 1]
            prefix = line.encode()[: node.col_offset].decode(errors="replace")
            if not prefix.strip():
                found.add(node.lineno - 1)
    return sorted(found)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def form_feed(text: str, rng: random.Random) -> str | None:
    """A form feed at the start of some statement lines (or between their spaces)."""
    tree = _tree(text)
    if tree is None:
        return None
    lines = text.split("\n")
    starts = _statement_lines(tree, lines)
    if not starts:
        return None
    for line in rng.sample(starts, k=max(1, len(starts) // rng.choice((1, 3, 8)))):
        indent = _indent(lines[line])
        cut = rng.randint(0, len(indent)) if rng.random() < 0.3 else 0
        lines[line] = lines[line][:cut] + "\f" + lines[line][cut:]
    return "\n".join(lines)


def tab_after_spaces(text: str, rng: random.Random) -> str | None:
    """One block's indentation step written as spaces then a tab (`  \\t` for `    `)."""
    tree = _tree(text)
    if tree is None:
        return None
    lines = text.split("\n")
    blocks = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt) and getattr(node, "body", None) and node.end_lineno
    ]
    if not blocks:
        return None
    node = rng.choice(blocks)
    first: ast.stmt = getattr(node, "body")[0]  # noqa: B009 (any compound statement)
    header = _indent(lines[node.lineno - 1])
    body = _indent(lines[first.lineno - 1])
    if not body.startswith(header) or body == header:
        return None
    step = " " * rng.randint(0, 3) + "\t"
    for number in range(first.lineno - 1, node.end_lineno or 0):
        if lines[number].startswith(body):
            lines[number] = header + step + lines[number][len(body) :]
    return "\n".join(lines)


def _simple_pairs(tree: ast.Module, lines: list[str]) -> list[tuple[ast.stmt, ast.stmt]]:
    """Adjacent one-line simple statements of one block, each alone on its line."""
    starts = set(_statement_lines(tree, lines))
    pairs: list[tuple[ast.stmt, ast.stmt]] = []
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list):
                continue
            for a, b in itertools.pairwise(block):
                if (
                    isinstance(a, _SIMPLE)
                    and isinstance(b, _SIMPLE)
                    and a.lineno == a.end_lineno
                    and b.lineno == b.end_lineno == a.lineno + 1
                    and a.lineno - 1 in starts
                    and b.lineno - 1 in starts
                    and "#" not in lines[a.lineno - 1]
                ):
                    pairs.append((a, b))
    return pairs


def semicolons(text: str, rng: random.Random) -> str | None:
    """Adjacent simple statements joined into `a; b` chains."""
    tree = _tree(text)
    if tree is None:
        return None
    lines = text.split("\n")
    pairs = _simple_pairs(tree, lines)
    if not pairs:
        return None
    chosen = rng.sample(pairs, k=max(1, len(pairs) // rng.choice((1, 2, 4))))
    kept: list[str | None] = list(lines)
    for a, b in sorted(chosen, key=lambda p: -p[0].lineno):
        first, second = kept[a.lineno - 1], kept[b.lineno - 1]
        if first is None or second is None:
            continue
        kept[a.lineno - 1] = f"{first.rstrip()}; {second.strip()}"
        kept[b.lineno - 1] = None
    return "\n".join(line for line in kept if line is not None)


def backslashes(text: str, rng: random.Random) -> str | None:
    """`a; \\` continued onto the next line, and assignments split after their `=`."""
    tree = _tree(text)
    if tree is None:
        return None
    lines = text.split("\n")
    pairs = _simple_pairs(tree, lines)
    edits: dict[int, str] = {}
    for a, b in pairs:
        if rng.random() < 0.5:
            first = a.lineno - 1
            extra = " " * rng.randint(0, 4)
            edits[first] = f"{lines[first].rstrip()}; \\\n{extra}{lines[b.lineno - 1].strip()}"
            edits[b.lineno - 1] = ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.lineno == node.end_lineno and rng.random() < 0.3:
            line = lines[node.lineno - 1]
            raw = line.encode()
            cut = node.value.col_offset
            head, tail = raw[:cut].decode(errors="replace"), raw[cut:].decode(errors="replace")
            if node.lineno - 1 not in edits and "#" not in line:
                edits[node.lineno - 1] = f"{head.rstrip()} \\\n{_indent(line)}    {tail}"
    if not edits:
        return None
    out = [edits.get(i, line) for i, line in enumerate(lines)]
    return "\n".join(line for i, line in enumerate(out) if not (i in edits and line == ""))


def line_breaks(text: str, rng: random.Random) -> str | None:
    """CRLF, CR-only or a mix of LF, CRLF and CR line breaks."""
    kind = rng.choice(("crlf", "cr", "mixed"))
    if kind == "crlf":
        return text.replace("\n", "\r\n")
    if kind == "cr":
        return text.replace("\n", "\r")
    parts = text.split("\n")
    return "".join(
        part + (rng.choice(("\n", "\r\n", "\r")) if i < len(parts) - 1 else "")
        for i, part in enumerate(parts)
    )


def gap_comments(text: str, rng: random.Random) -> str | None:
    """A comment line in every gap between two lines where the tokenizer allows one."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    ends = {tok.start[0] - 1 for tok in tokens if tok.type in (tokenize.NEWLINE, tokenize.NL)}
    lines = text.split("\n")
    out: list[str] = []
    for number, line in enumerate(lines):
        out.append(line)
        if number in ends and number + 1 < len(lines):
            following = next((x for x in lines[number + 1 :] if x.strip()), "")
            indent = _indent(following) if rng.random() < 0.8 else ""
            out.append(f"{indent}# gap {number}")
    return "\n".join(out)


def parenthesised_with(text: str, rng: random.Random) -> str | None:
    """One-line `with a, b:` headers written as `with (  # c` / items / `):`."""
    tree = _tree(text)
    if tree is None:
        return None
    lines = text.split("\n")
    edits: dict[int, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.With) or node.lineno != node.body[0].lineno - 1:
            continue
        line = lines[node.lineno - 1]
        if "#" in line or not line.rstrip().endswith(":"):
            continue
        items = []
        for item in node.items:
            end = item.optional_vars or item.context_expr
            segment = ast.get_source_segment(
                text,
                ast.Tuple(
                    elts=[],
                    ctx=ast.Load(),
                    lineno=item.context_expr.lineno,
                    col_offset=item.context_expr.col_offset,
                    end_lineno=end.end_lineno,
                    end_col_offset=end.end_col_offset,
                ),
            )
            if segment is None:
                break
            items.append(segment)
        else:
            indent = _indent(line)
            inner = indent + " " * 4
            if rng.random() < 0.5:
                body = "".join(f"{inner}{s},  # item {i}\n" for i, s in enumerate(items))
                edits[node.lineno - 1] = f"{indent}with (  # open\n{body}{indent}):  # close"
            else:
                body = ", ".join(items)
                edits[node.lineno - 1] = f"{indent}with (\n{inner}# why\n{inner}{body}\n{indent}):"
    if not edits:
        return None
    return "\n".join(edits.get(i, line) for i, line in enumerate(lines))


MUTATORS: dict[str, Mutator] = {
    "form-feed": form_feed,
    "tab-after-spaces": tab_after_spaces,
    "semicolons": semicolons,
    "backslashes": backslashes,
    "gap-comments": gap_comments,
    "parenthesised-with": parenthesised_with,
    "line-breaks": line_breaks,  # last: the others split on "\n"
}


def mutants(text: str, rng: random.Random, per_program: int) -> Iterator[tuple[str, str]]:
    """Up to `per_program` distinct parsable mutants of `text`: (mutator names, text). Each
    applies one to three mutators, in `MUTATORS` order."""
    names = list(MUTATORS)
    seen: set[str] = set()
    for attempt in range(per_program * 3):
        if len(seen) >= per_program:
            return
        chosen = (
            [names[attempt % len(names)]]
            if attempt < len(names)
            else sorted(rng.sample(names, k=rng.randint(1, 3)), key=names.index)
        )
        mutant: str | None = text
        for name in chosen:
            mutant = MUTATORS[name](mutant, rng) if mutant is not None else None
        if mutant is None or mutant == text or mutant in seen or not parses(mutant):
            continue
        seen.add(mutant)
        yield "+".join(chosen), mutant


# -- checks ------------------------------------------------------------------------------------


@dataclass
class FuzzTally:
    """What the fix fuzz saw."""

    mutants: int = 0
    fixes: int = 0
    unparsable: int = 0
    comments_lost: int = 0
    other: int = 0
    fix_all: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def fail(self, kind: str, where: str, message: str) -> None:
        """Record one failure (the first few in full)."""
        if len(self.failures) < 20:
            self.failures.append(f"[{kind}] {where}: {message[:3000]}")

    @property
    def ok(self) -> bool:
        """True when no fix broke an invariant."""
        return not (self.unparsable or self.comments_lost or self.other or self.fix_all)


class _Refusals(logging.Handler):
    """Counts the fixes the engine's central check refused (builder bugs it masked)."""

    def __init__(self, tally: FuzzTally, label: str) -> None:
        super().__init__(logging.INFO)
        self.tally = tally
        self.label = label

    def emit(self, record: logging.LogRecord) -> None:
        if "not offered" in record.getMessage():
            reason = record.getMessage().split(": ", 1)[-1].split(" [")[0]
            self.tally.refused[f"{self.label}: {reason}"] += 1


def check_mutant(name: str, text: str, tally: FuzzTally) -> None:
    """Apply every offered fix of `text` alone (invariants.checks.check_fix) and all together
    (check_engine), and count what broke."""
    tally.mutants += 1
    logger = logging.getLogger("gradguard.core.fix_validation")
    handler = _Refusals(tally, name.split("@")[0])
    previous = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        before = check_source(text)
        for finding in before.findings:
            for fix in finding.fixes:
                if not fix.edits:
                    continue
                tally.fixes += 1
                try:
                    check_fix(text, finding, fix, before)
                except AssertionError as exc:
                    message = str(exc)
                    if "does not parse" in message:
                        tally.unparsable += 1
                        kind = "unparsable"
                    elif "comments lost" in message:
                        tally.comments_lost += 1
                        kind = "comments lost"
                    else:
                        tally.other += 1
                        kind = "invariant"
                    tally.fail(kind, f"{name} {finding.code}", message)
        try:
            check_engine(text)
        except AssertionError as exc:
            tally.fix_all += 1
            tally.fail("fix-all", name, str(exc))
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)
