"""The `gradguard` command: `check` files, explain a `rule`, start the `lsp` server.

Start-up cost matters (pre-commit runs this on every commit), so this module imports only
the standard library and the pure core; the engine (only for files that mention torch),
output formats, the cache, difflib, subprocess (for git), worker processes and the language
server are imported when used, and libcst only when a rule builds a fix.

Exit codes: 0 no findings, 1 findings remain (or `--diff` would change something),
2 usage error, a `pyproject.toml` that cannot be parsed, or a file that could not be read,
decoded or parsed. A bad value in `[tool.gradguard]` drops only that key, with a warning.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from gradguard import __version__
from gradguard.core.settings import Settings, SettingsError
from gradguard.file_check import Mode
from gradguard.files import DecodedSource, Discovery, NotUtf8Error, decode
from gradguard.outcome import WARNING, FileOutcome
from gradguard.output import FORMATS, Failure, FileReport, Report, printable, render
from gradguard.workspace import Overrides, ProjectSettings, source_files

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import TextIO

    from gradguard.cache import Cache
    from gradguard.file_check import FileTask

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
STDIN = "-"

# A pattern, not a compiled regex: compiled on the first `--select`/`--ignore` (start-up).
_SELECTOR = r"ALL|[A-Z]+[0-9]*"


def _codes(value: str) -> tuple[str, ...]:
    """argparse type for `--select`/`--ignore`: comma-separated codes or prefixes."""
    codes = tuple(c.strip().upper() for c in value.split(",") if c.strip())
    for code in codes:
        if not re.fullmatch(_SELECTOR, code):
            raise argparse.ArgumentTypeError(f"invalid rule code or prefix: {code!r}")
    return codes


def _jobs(value: str) -> int:
    """argparse type for `--jobs`: a positive number of processes."""
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of jobs, got {value!r}")
    return int(value)


def _host_port(value: str) -> str:
    """argparse type for `--tcp`: `HOST:PORT` with a numeric port."""
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return value


def _terminal_columns() -> int:
    """The terminal's width as `shutil.get_terminal_size().columns` reads it ($COLUMNS, else
    the width of standard output's terminal, else 80), without importing shutil (which
    imports bz2, lzma and fnmatch, a few milliseconds of every start)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80
    return size.columns or 80


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout, with the terminal width read by `_terminal_columns`:
    argparse builds a formatter for every `add_argument`, so its own terminal query (through
    shutil) ran on every start, help printed or not."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = _terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(
        prog="gradguard",
        formatter_class=_HelpFormatter,
        description="Find PyTorch autograd mistakes before they reach run time.",
    )
    parser.add_argument("--version", action="version", version=f"gradguard {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser(
        "check",
        formatter_class=_HelpFormatter,
        help="check files or directories",
        description="Check Python files and Jupyter notebooks for autograd mistakes.",
    )
    check.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or directories to check (default: .); `-` reads standard input",
    )
    check.add_argument("--select", type=_codes, metavar="CODES", help="only these codes/prefixes")
    check.add_argument("--ignore", type=_codes, metavar="CODES", help="skip these codes/prefixes")
    check.add_argument("--fix", action="store_true", help="apply safe fixes")
    check.add_argument(
        "--unsafe-fixes",
        dest="unsafe_fixes",
        action="store_true",
        default=None,
        help="also apply (and count as fixable) unsafe fixes",
    )
    check.add_argument(
        "--no-unsafe-fixes",
        dest="unsafe_fixes",
        action="store_false",
        help="do not apply unsafe fixes even if pyproject.toml enables them",
    )
    check.add_argument(
        "--diff", action="store_true", help="print the diff --fix would apply; write nothing"
    )
    check.add_argument(
        "--output-format", choices=FORMATS, default="text", help="how to report findings"
    )
    check.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the name of the file read from standard input (messages, settings)",
    )
    check.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        metavar="N",
        help="check files in up to N processes (default: the usable cores; 1: in process)",
    )
    check.add_argument(
        "--no-cache",
        dest="cache",
        action="store_false",
        help="neither read nor write the results cache (also: GRADGUARD_NO_CACHE=1)",
    )
    check.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="where the results cache lives (also: GRADGUARD_CACHE_DIR; "
        "default: .gradguard_cache in the project root)",
    )

    rule = commands.add_parser(
        "rule",
        help="explain a rule",
        description="Print a rule's documentation.",
        formatter_class=_HelpFormatter,
    )
    rule.add_argument("code", nargs="?", help="rule code (GG201) or name; omit to list all")
    rule.add_argument("--all", action="store_true", help="list every rule")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")

    lsp = commands.add_parser(
        "lsp",
        help="start the language server",
        description="Run the language server.",
        formatter_class=_HelpFormatter,
    )
    lsp.add_argument(
        "--tcp", type=_host_port, metavar="HOST:PORT", help="listen on TCP instead of stdio"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    _tolerant_streams()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    if sys.stdout is None and args.command != "lsp":
        _error("standard output is closed; nothing was checked")
        return EXIT_ERROR
    try:
        if args.command == "check":
            code = run_check(CheckOptions.from_args(args))
        elif args.command == "rule":
            code = run_rule(args.code, list_all=args.all, fmt=args.output_format)
        elif args.command == "lsp":
            return run_lsp(args.tcp)
        else:
            parser.print_help(sys.stderr)
            return EXIT_ERROR
        sys.stdout.flush()  # a full disk surfaces here, not as a traceback at exit
        return code
    except BrokenPipeError:
        # `gradguard check | head`: the reader left; exit quietly without a traceback.
        _discard_stdout()
        return EXIT_FINDINGS
    except OSError as exc:
        if exc.filename is not None:  # a file the run needed (each checked file is handled)
            _error(f"{exc.strerror or exc}: {exc.filename}")
            return EXIT_ERROR
        # Writing the report failed (`> /dev/full`): say so on stderr, exit as an error.
        _discard_stdout()
        _error(f"cannot write the report: {exc.strerror or exc}")
        return EXIT_ERROR


def _tolerant_streams() -> None:
    """Never fail on a character the output encoding cannot hold (`PYTHONIOENCODING=ascii`,
    a file name that is not UTF-8): escape it instead."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def _discard_stdout() -> None:
    """Point stdout at the null device so the interpreter's final flush cannot fail."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _error(message: str) -> None:
    if sys.stderr is not None:
        with contextlib.suppress(OSError):
            sys.stderr.write(f"error: {message}\n")


# -- check ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckOptions:
    """The `check` command's options, independent of argparse."""

    paths: tuple[str, ...] = (".",)
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    fix: bool = False
    unsafe_fixes: bool | None = None
    diff: bool = False
    output_format: str = "text"
    stdin_filename: str | None = None
    jobs: int | None = None  # None: one per usable core
    cache: bool = True
    cache_dir: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> CheckOptions:
        """Build from parsed arguments; no PATH means `.`, or stdin with --stdin-filename."""
        paths = tuple(args.paths) or ((STDIN,) if args.stdin_filename else (".",))
        return cls(
            paths=paths,
            select=args.select,
            ignore=args.ignore,
            fix=args.fix,
            unsafe_fixes=args.unsafe_fixes,
            diff=args.diff,
            output_format=args.output_format,
            stdin_filename=args.stdin_filename,
            jobs=args.jobs,
            cache=args.cache,
            cache_dir=args.cache_dir,
        )


@dataclass
class SettingsResolver:
    """Settings for each file: the nearest `[tool.gradguard]`, then command-line overrides.

    `--select` starts a fresh selection (the file's `select` and `ignore` are replaced by the
    command line's); `--ignore` alone extends the file's `ignore`. `per-file-ignores` and
    `severity` always come from the file; `--unsafe-fixes`/`--no-unsafe-fixes` win over it.
    (The rules live in `gradguard.workspace`, shared with the language server.)

    A bad key in a `pyproject.toml` is dropped and described once in `problems`; a file that
    cannot be parsed at all raises `SettingsError`.
    """

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    unsafe_fixes: bool | None = None
    problems: list[str] = field(default_factory=list)
    _project: ProjectSettings = field(default_factory=ProjectSettings)

    def for_file(self, path: Path) -> Settings:
        """The effective settings for `path`; raises `SettingsError` naming the file."""
        config = self._project.for_file(path)
        self.problems.extend(p for p in config.problems if p not in self.problems)
        overrides = Overrides(self.select, self.ignore, unsafe_fixes=self.unsafe_fixes)
        return overrides.apply(config.settings)


@dataclass
class CheckRun:
    """The state of one `gradguard check` invocation: what has been reported so far.

    Files are checked by `gradguard.file_check` (here or in workers); their outcomes are
    recorded here in file order, which fixes the order of every message and finding.
    """

    options: CheckOptions
    out: TextIO
    err: TextIO
    reports: list[FileReport] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    fixed: int = 0
    would_fix: int = 0

    @property
    def mode(self) -> Mode:
        """What to do besides reporting (`--fix`, `--diff`)."""
        return Mode(fix=self.options.fix, diff=self.options.diff)

    def check_files(self, discovery: Discovery, settings: Sequence[Settings]) -> None:
        """Check the discovered files (`settings[i]` applies to `discovery.files[i]`)."""
        from gradguard.file_check import FileTask, check_file, read

        cache: Cache | None = None
        cache_opened = False  # opened at the first file to analyse, not before
        done: list[tuple[str, str, Settings, FileOutcome | int]] = []
        pending: list[FileTask] = []
        for path, file_settings in zip(discovery.files, settings, strict=True):
            display = _display_path(path)
            got = read(path, display)
            if isinstance(got, FileOutcome):
                done.append((display, "", file_settings, got))
                continue
            writable = path not in discovery.outside
            task = FileTask(
                path, display, got.decoded, file_settings, self.mode, writable, None, got.notebook
            )
            text = got.text
            if task.trivial:  # nothing to analyse: cheaper than a cache look-up
                done.append((display, text, file_settings, check_file(task)))
                continue
            if not cache_opened:
                cache, cache_opened = self._cache(), True
            if cache is not None:
                entry = cache.entry(path, display, file_settings, got.data)
                hit = entry.load()
                if hit is not None:
                    done.append((display, text, file_settings, hit))
                    continue
                task = replace(task, cache_entry=entry)
            done.append((display, text, file_settings, len(pending)))
            pending.append(task)
        checked = _check_pending(pending, self.options.jobs) if pending else []
        for display, text, file_settings, result in done:
            outcome = checked[result] if isinstance(result, int) else result
            self.record(display, text, file_settings, outcome)

    def _cache(self) -> Cache | None:
        """The results cache, when this run uses one (plain checks only)."""
        if not self.options.cache or self.mode.fixing:
            return None
        from gradguard import cache

        if cache.disabled_by_environment():
            return None
        return cache.Cache.open(cache.location(self.options.cache_dir))

    def check_stdin(self, data: bytes, settings: Settings) -> bytes:
        """Check standard input; returns the bytes `--fix` prints (the input if unchanged)."""
        from gradguard.file_check import check_stdin

        display = self.options.stdin_filename or STDIN
        try:
            decoded = decode(data)
        except NotUtf8Error as exc:
            self.fail(display, str(exc), exc.line, exc.column)
            return data
        if display.lower().endswith(".ipynb"):
            return self._check_stdin_notebook(display, data, decoded, settings)
        outcome = check_stdin(display, decoded, settings, self.mode)
        self.record(display, decoded.text, settings, outcome)
        return data if outcome.new_text is None else decoded.encode(outcome.new_text)

    def _check_stdin_notebook(
        self, display: str, data: bytes, decoded: DecodedSource, settings: Settings
    ) -> bytes:
        """Check a notebook read from standard input (`--stdin-filename x.ipynb`)."""
        from gradguard.file_check import _read_notebook
        from gradguard.notebook_check import check_notebook_stdin

        got = _read_notebook(data, decoded)
        if isinstance(got, FileOutcome):  # not a notebook we can check
            self.record(display, "", settings, got)
            return data
        assert got.notebook is not None
        outcome, new_raw = check_notebook_stdin(display, got.notebook, settings, self.mode)
        self.record(display, got.text, settings, outcome)
        return data if new_raw is None else decoded.encode(new_raw)

    def record(self, display: str, text: str, settings: Settings, outcome: FileOutcome) -> None:
        """Add one file's outcome: its messages to stderr now, its findings to the report
        (a file without findings adds nothing a report shows, and needs no `SourceText`)."""
        for message in outcome.messages:
            if message.kind == WARNING:
                self.warn(display, message.text)
            else:
                self.fail(display, message.text, message.line, message.column, message.cell)
        if outcome.findings:
            from gradguard.core.text import SourceText  # here: most files have no findings

            source = SourceText(outcome.new_text if outcome.new_text is not None else text)
            report = FileReport(
                display, source, outcome.findings, settings.unsafe_fixes, outcome.cells
            )
            self.reports.append(report)
        self.fixed += outcome.fixed
        self.would_fix += outcome.would_fix
        if outcome.diff:
            self.diffs.append(outcome.diff)

    def warn(self, display: str, message: str) -> None:
        """A file left out on purpose (too large, not a regular file): named, not an error."""
        self.err.write(f"warning: {printable(display)}: {message}\n")

    def fail(
        self, display: str, message: str, line: int = 0, column: int = 0, cell: int = 0
    ) -> None:
        """A file that could not be checked (or fixed): an error, written at once."""
        from gradguard.core.findings import Position

        position = Position(line - 1, column - 1) if line else None
        failure = Failure(display, message, position, cell or None)
        self.failures.append(failure)
        self.err.write(failure.render() + "\n")

    def report(self) -> Report:
        """The collected findings as a `Report`."""
        return Report(tuple(self.reports), tuple(self.failures), self.fixed, self.options.fix)


def run_check(
    options: CheckOptions,
    *,
    stdin: bytes | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """`gradguard check`: check, maybe fix, report; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    resolver = SettingsResolver(options.select, options.ignore, options.unsafe_fixes)
    for selector in _unknown_selectors((*(options.select or ()), *(options.ignore or ()))):
        err.write(f"warning: `{selector}` matches no GradGuard rule\n")
    run = CheckRun(options, out, err)
    disk_paths = [p for p in options.paths if p != STDIN]
    discovery = source_files(disk_paths)
    for missing in discovery.missing:
        run.fail(missing, "No such file or directory")
    for where, message in discovery.errors:
        run.fail(where, message)
    for where, message in discovery.skipped:
        run.warn(_display_path(Path(where)), message)
    try:
        # Every file's settings first: a broken pyproject.toml stops the run before any file
        # is checked or fixed, wherever it sits in the list.
        settings = [resolver.for_file(path) for path in discovery.files]
        if STDIN in options.paths:
            name = options.stdin_filename
            stdin_settings = resolver.for_file(Path(name) if name else Path.cwd() / STDIN)
    except SettingsError as exc:
        err.write(f"error: {exc}\n")
        return EXIT_ERROR
    for problem in resolver.problems:  # one line per dropped key; the rest applies
        err.write(f"warning: {problem} (ignored)\n")
    run.check_files(discovery, settings)
    fixed_stdin = b""
    if STDIN in options.paths:
        data = stdin if stdin is not None else sys.stdin.buffer.read()
        fixed_stdin = run.check_stdin(data, stdin_settings)
    nothing_named = not (discovery.missing or discovery.errors)
    if not discovery.files and STDIN not in options.paths and nothing_named:
        err.write("warning: No Python files found under the given path(s)\n")

    if options.diff:
        out.write("".join(run.diffs))
        if run.would_fix:
            err.write(f"Would fix {run.would_fix} error{'s' if run.would_fix != 1 else ''}.\n")
        if run.failures:
            return EXIT_ERROR
        return EXIT_FINDINGS if run.diffs else EXIT_OK

    report = run.report()
    if options.fix and STDIN in options.paths:
        # The fixed source owns stdout (editors pipe it back); diagnostics go to stderr.
        out.flush()
        buffer = getattr(out, "buffer", None)
        if buffer is not None:
            buffer.write(fixed_stdin)
            buffer.flush()
        else:  # a text-only stream (tests): the bytes are UTF-8 by construction or pass-through
            out.write(fixed_stdin.decode("utf-8", "surrogateescape"))
        err.write(render(report, options.output_format, color=_use_color(err)))
    else:
        out.write(render(report, options.output_format, color=_use_color(out)))
    if run.failures:
        return EXIT_ERROR
    return EXIT_FINDINGS if report.finding_count else EXIT_OK


def _check_pending(tasks: Sequence[FileTask], jobs: int | None) -> list[FileOutcome]:
    """Analyse `tasks` (in worker processes when there are enough of them)."""
    # Imported here: a run whose files are all trivial needs no pool code (start-up).
    from gradguard.parallel import check_all, usable_cores

    return check_all(tasks, jobs or usable_cores())


def _unknown_selectors(selectors: Sequence[str]) -> list[str]:
    """Command-line codes or prefixes that select nothing (a typo, most likely)."""
    if not selectors:
        return []  # skip importing the rules just for this
    from gradguard.core.rule import all_rules

    codes = [rule.code for rule in all_rules()]
    return [s for s in selectors if s != "ALL" and not any(c.startswith(s) for c in codes)]


def _display_path(path: Path) -> str:
    """How a path appears in messages: relative to the working directory when inside it."""
    if not path.is_absolute():
        return path.as_posix().removeprefix("./") if path.as_posix() != "." else "."
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(path)


def _use_color(stream: TextIO) -> bool:
    """Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


# -- rule -------------------------------------------------------------------------------------


def run_rule(code: str | None, *, list_all: bool = False, fmt: str = "text") -> int:
    """`gradguard rule CODE`: print a rule's docs; without a code (or `--all`), list rules."""
    from gradguard.core.rule import Rule, all_rules, rule_by_code

    if code is None or list_all:
        rules: Sequence[Rule] = all_rules()
        if fmt == "json":
            sys.stdout.write(_rules_json(rules))
        else:
            sys.stdout.write(_rules_table(rules))
        return EXIT_OK
    rule = rule_by_code(code)
    if rule is None:
        sys.stderr.write(
            f"error: unknown rule {code!r} (run `gradguard rule --all` to list rules)\n"
        )
        return EXIT_ERROR
    if fmt == "json":
        sys.stdout.write(_rules_json([rule], single=True))
        return EXIT_OK
    sys.stdout.write(
        f"# {rule.name} ({rule.code})\n\n"
        f"Severity: {rule.severity.value}\n\n"
        f"{rule.docs}\n\n"
        f"Documentation: {rule.url}\n"
    )
    return EXIT_OK


def _rule_dict(rule: object) -> dict[str, str]:
    from gradguard.core.rule import Rule

    assert isinstance(rule, Rule)
    return {
        "code": rule.code,
        "name": rule.name,
        "severity": rule.severity.value,
        "summary": rule.summary,
        "url": rule.url,
        "explanation": rule.docs,
    }


def _rules_json(rules: Sequence[object], *, single: bool = False) -> str:
    import json

    items = [_rule_dict(r) for r in rules]
    return json.dumps(items[0] if single else items, indent=2, ensure_ascii=False) + "\n"


def _rules_table(rules: Sequence[object]) -> str:
    rows = [("CODE", "NAME", "SEVERITY", "SUMMARY")]
    rows += [(d["code"], d["name"], d["severity"], d["summary"]) for d in map(_rule_dict, rules)]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return "".join(
        f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}".rstrip() + "\n"
        for r in rows
    )


# -- lsp --------------------------------------------------------------------------------------


def run_lsp(tcp: str | None) -> int:
    """`gradguard lsp`: import the server only now (pygls is slow to import) and start it."""
    import importlib

    try:
        module = importlib.import_module("gradguard.lsp.server")
        start = module.start
    except (ImportError, AttributeError) as exc:
        sys.stderr.write(
            f"error: the GradGuard language server is not available: {exc}\n"
            "hint: reinstall gradguard with its dependencies (pygls, lsprotocol)\n"
        )
        return EXIT_ERROR
    result = start(tcp)
    return result if isinstance(result, int) else EXIT_OK
