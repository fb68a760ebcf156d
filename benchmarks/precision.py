"""Per-rule precision and recall over the project's own labelled corpus; prints docs/precision.md.

    .venv/bin/python benchmarks/precision.py > docs/precision.md

Four kinds of labelled material, all in this repository:

* corpus scripts (`tests/corpus/**/*.py`, `examples/*.py`): a line ending in
  `# expect: GG201` must get exactly that finding; a line ending in `# missed: GG201` holds
  a real GG201 bug GradGuard does not find yet (a positive, so it counts as a false
  negative); every other (line, code) pair is a negative. Scored per (line, code) pair, as
  `tests/test_corpus.py` checks them.
* every rule's VALID examples: negatives for every rule (all rules run on each).
* every rule's INVALID examples: one positive each, for the rule that owns the example
  (found = at least one finding of that rule). The label says nothing about other rules,
  so their findings there are listed but not scored.
* the clean world: the PyTorch code of pinned PyPI releases listed in
  `tests/clean_world/manifest.toml`, downloaded into a cache outside the repository by
  `scripts/setup.d/50-clean-world.sh` (see `tests/clean_world/README.md`). Correct code from
  published projects: negatives for every rule, and any finding is a false positive, except
  the manifest's `[[true_finding]]` entries (real bugs judged by hand), which are positives.

The output depends only on the rules and these files (no timings, no dates), so a test
(`tests/test_precision_table.py`) can insist that the published table is up to date.
"""

from __future__ import annotations

import importlib.util
import io
import re
import sys
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from gradguard.core.engine import CheckResult, check_source
from gradguard.core.rule import Rule, all_rules

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
EXAMPLES = ROOT / "examples"
CLEAN_WORLD_SOURCES = ROOT / "tests" / "clean_world_sources.py"
COMMAND = "python benchmarks/precision.py > docs/precision.md"

# Same marker grammar as tests/test_corpus.py: a marker closes a real comment token, and a
# second one may stand before it (`# expect: GG101  # missed: GG203`).
_MARKER = re.compile(r"(?P<kind>expect|missed):\s*(?P<codes>GG\d{3}(?:\s*,\s*GG\d{3})*)\s*$")
_CODE = re.compile(r"GG\d{3}")

Pairs = set[tuple[int, str]]


def corpus_files() -> list[Path]:
    """Every labelled corpus script and bundled example (the files test_corpus.py checks)."""
    return sorted(CORPUS.rglob("*.py")) + sorted(EXAMPLES.glob("*.py"))


def _clean_world_sources() -> ModuleType:
    """`tests/clean_world_sources.py`, shared with the clean-world test (one module object, so
    a pytest session checks the clean world once for both)."""
    name = "clean_world_sources"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, CLEAN_WORLD_SOURCES)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while the class is built
        spec.loader.exec_module(module)
    return sys.modules[name]


def clean_world_files() -> list[Path]:
    """Every clean-world file to check (in the cache; raises when the cache lacks a package)."""
    return [path for _, path in _clean_world_sources().all_files()]


def _comment_codes(comment: str) -> Iterable[str]:
    """The codes of every `expect:` or `missed:` marker closing one comment token."""
    rest = comment
    while match := _MARKER.search(rest):
        yield from _CODE.findall(match["codes"])
        rest = rest[: match.start()].rstrip()
        if not rest.endswith("#"):
            return
        rest = rest[:-1].rstrip()


def expected_findings(text: str) -> Pairs:
    """(1-based line, code) pairs labelled as real bugs: `# expect:` and `# missed:` markers."""
    expected: Pairs = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            expected.update((tok.start[0], code) for code in _comment_codes(tok.string))
    return expected


def _check(text: str, where: str) -> CheckResult:
    result = check_source(text, path=where)
    # A file the engine cannot analyse would silently score as "no findings": refuse it.
    if result.parse_error is not None or result.rule_errors or result.skipped:
        raise RuntimeError(f"{where} was not analysed: {result}")
    return result


def _pairs(result: CheckResult) -> Pairs:
    return {(f.range.start.line + 1, f.code) for f in result.findings}


@dataclass
class Tally:
    """One rule's counts over all the labelled material."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    negatives: int = 0
    clean_files: int = 0
    clean_files_with_findings: int = 0
    false_positives: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float | None:
        """TP / (TP + FP); None when the rule reported nothing."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        """TP / (TP + FN); None when nothing is labelled for the rule."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


@dataclass
class Report:
    """All tallies plus the sizes of the material they were computed over."""

    tallies: dict[str, Tally]
    corpus_files: int = 0
    valid_examples: int = 0
    invalid_examples: int = 0
    clean_files: int = 0
    clean_lines: int = 0
    clean_true_findings: int = 0
    clean_files_flagged: set[str] = field(default_factory=set)
    unscored: list[str] = field(default_factory=list)


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.as_posix()


def _score_corpus(report: Report, paths: Iterable[Path]) -> None:
    for path in paths:
        text = path.read_text(encoding="utf-8")
        got, expected = _pairs(_check(text, _relative(path))), expected_findings(text)
        report.corpus_files += 1
        for code, tally in report.tallies.items():
            got_r = {pair for pair in got if pair[1] == code}
            expected_r = {pair for pair in expected if pair[1] == code}
            tally.tp += len(got_r & expected_r)
            tally.fp += len(got_r - expected_r)
            tally.fn += len(expected_r - got_r)
            tally.negatives += not expected_r
            tally.false_positives += [f"{_relative(path)}:{line}" for line, _ in got_r - expected_r]
            tally.missed += [f"{_relative(path)}:{line}" for line, _ in expected_r - got_r]


def _score_examples(report: Report, rules: Iterable[Rule]) -> None:
    for rule in rules:
        for index, source in enumerate(rule.valid):
            where = f"{rule.code} VALID #{index + 1}"
            got = _pairs(_check(source, where))
            report.valid_examples += 1
            for code, tally in report.tallies.items():
                lines = sorted(line for line, c in got if c == code)
                tally.negatives += 1
                tally.fp += len(lines)
                tally.false_positives += [f"{where}, line {line}" for line in lines]
        for index, example in enumerate(rule.invalid):
            where = f"{rule.code} INVALID #{index + 1}"
            got = _pairs(_check(example.code, where))
            report.invalid_examples += 1
            tally = report.tallies[rule.code]
            if any(c == rule.code for _, c in got):
                tally.tp += 1
            else:
                tally.fn += 1
                tally.missed.append(where)
            report.unscored += [
                f"{where}, line {line}: {c}" for line, c in sorted(got) if c != rule.code
            ]


def _clean_world_name(path: Path, sources: ModuleType) -> str:
    """A cached file's case id (`<name>-<version>/<path>`), never its machine-dependent
    absolute path; any other file's path relative to the repository."""
    for package in sources.load_manifest().packages:
        if path.is_relative_to(sources.unpacked_dir(package)):
            return str(sources.case_id(package, path))
    return _relative(path)


def _score_clean_world(report: Report, paths: Iterable[Path]) -> None:
    sources = _clean_world_sources()
    true = {(t.file, t.line, t.code) for t in sources.load_manifest().true_findings}
    for path in paths:
        name = _clean_world_name(path, sources)
        text = path.read_text(encoding="utf-8")
        result = sources.check(name, path)
        if result.parse_error is not None or result.rule_errors or result.skipped:
            raise RuntimeError(f"{name} was not analysed: {result}")
        got = _pairs(result)
        expected = {(line, code) for file, line, code in true if file == name}
        report.clean_files += 1
        report.clean_lines += len(text.splitlines())
        report.clean_true_findings += len(expected)
        if got - expected:
            report.clean_files_flagged.add(name)
        for code, tally in report.tallies.items():
            got_r = {line for line, c in got if c == code}
            expected_r = {line for line, c in expected if c == code}
            tally.tp += len(got_r & expected_r)
            tally.fn += len(expected_r - got_r)
            tally.missed += [f"{name}:{line}" for line in sorted(expected_r - got_r)]
            wrong = sorted(got_r - expected_r)
            tally.negatives += not expected_r
            tally.clean_files += 1
            tally.fp += len(wrong)
            tally.clean_files_with_findings += bool(wrong)
            tally.false_positives += [f"{name}:{line}" for line in wrong]


def measure(
    rules: tuple[Rule, ...] | None = None,
    corpus: Iterable[Path] | None = None,
    clean_world: Iterable[Path] | None = None,
) -> Report:
    """Run every rule over all the labelled material and count per rule."""
    rules = rules if rules is not None else all_rules()
    report = Report(tallies={rule.code: Tally() for rule in rules})
    _score_corpus(report, corpus if corpus is not None else corpus_files())
    _score_examples(report, rules)
    _score_clean_world(report, clean_world if clean_world is not None else clean_world_files())
    return report


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def render(report: Report | None = None, rules: tuple[Rule, ...] | None = None) -> str:
    """The Markdown page: how it was measured, the table, and every error it counts."""
    rules = rules if rules is not None else all_rules()
    report = report if report is not None else measure(rules)
    lines = [
        "# GradGuard precision and recall",
        "",
        f"Generated by `{COMMAND}`; do not edit by hand. A test fails when this page no "
        "longer matches the rules and the labelled files.",
        "",
        "Measured over the project's own labelled material, every rule run on every item:",
        "",
        f"* {report.corpus_files} corpus scripts (`tests/corpus/`, `examples/`) with "
        "`# expect: GGNNN` markers (found) and `# missed: GGNNN` markers (real bugs not "
        "found yet, false negatives), scored per (line, rule) pair;",
        f"* {report.valid_examples} VALID rule examples (look-alike negatives), negatives "
        "for every rule;",
        f"* {report.invalid_examples} INVALID rule examples, one positive each for the rule "
        "that owns it;",
        f"* {report.clean_files} files of clean real-world PyTorch code ({report.clean_lines:,} "
        "lines mentioning `torch`, from the pinned PyPI releases in "
        "`tests/clean_world/manifest.toml`, downloaded by `scripts/setup.d/50-clean-world.sh`), "
        "negatives for every rule, except "
        f"{report.clean_true_findings} findings judged by hand to be real bugs in those "
        "packages (the manifest's true findings), which count as positives.",
        "",
        "TP / FP / FN count findings (corpus: (line, rule) pairs; examples: one per example). "
        '"Negatives" is how many files and examples carry no label of the rule and so must '
        'stay silent for it; "Clean files" is how many of the clean real-world files the '
        "rule reported a false positive on. Precision is TP / (TP + FP), recall TP / (TP + FN); "
        '"—" where the denominator is 0. This is the recall on the project\'s own, '
        "hand-written positives, not an estimate of recall on code in the wild.",
        "",
        "| Rule | Name | TP | FP | FN | Precision | Recall | Negatives | Clean files "
        "with findings |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    total = Tally()
    for rule in rules:
        t = report.tallies[rule.code]
        lines.append(
            f"| {rule.code} | `{rule.name}` | {t.tp} | {t.fp} | {t.fn} | {_ratio(t.precision)} "
            f"| {_ratio(t.recall)} | {t.negatives} | {t.clean_files_with_findings} / "
            f"{t.clean_files} |"
        )
        total.tp, total.fp, total.fn = total.tp + t.tp, total.fp + t.fp, total.fn + t.fn
    clean_with_any = len(report.clean_files_flagged)
    lines.append(
        f"| **all** | | {total.tp} | {total.fp} | {total.fn} | {_ratio(total.precision)} "
        f"| {_ratio(total.recall)} | | {clean_with_any} / {report.clean_files} |"
    )
    lines += ["", "## False positives", ""]
    errors = [
        (rule.code, site) for rule in rules for site in report.tallies[rule.code].false_positives
    ]
    lines += [f"* {code}: {site}" for code, site in sorted(errors)] or ["None."]
    lines += ["", "## Missed (false negatives)", ""]
    misses = [(rule.code, site) for rule in rules for site in report.tallies[rule.code].missed]
    lines += [f"* {code}: {site}" for code, site in sorted(misses)] or ["None."]
    lines += [
        "",
        "## Other rules' findings on INVALID examples (not scored)",
        "",
        "An INVALID example is labelled for its own rule only; another rule reporting on it "
        "is either a second real mistake in the example or a false positive.",
        "",
    ]
    lines += [f"* {entry}" for entry in report.unscored] or ["None."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
