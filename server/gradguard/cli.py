"""The `gradguard` command: `check` files, explain a `rule`, start the `lsp` server.

Start-up cost matters (pre-commit runs this on every commit), so this module imports only
the standard library and the pure core; output formats, difflib, subprocess (for git) and
the language server are imported when used, and libcst only when a rule builds a fix.

Exit codes: 0 no findings, 1 findings remain (or `--diff` would change something),
2 usage error, bad settings, or a file that could not be read, decoded or parsed.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from gradguard import __version__
from gradguard.core.settings import Settings, SettingsError, load_pyproject, nearest_settings_file
from gradguard.files import (
    DecodedSource,
    FileChangedError,
    NotRegularFileError,
    NotUtf8Error,
    TooLargeError,
    decode,
    discover,
    read_source,
    write_atomic,
)
from gradguard.output import FORMATS, Failure, FileReport, Report, printable, render

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
STDIN = "-"

_SELECTOR = re.compile(r"^(ALL|[A-Z]+[0-9]*)$")
# Python's line breaks only: str.splitlines would also split at form feeds and U+2028.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _codes(value: str) -> tuple[str, ...]:
    """argparse type for `--select`/`--ignore`: comma-separated codes or prefixes."""
    codes = tuple(c.strip().upper() for c in value.split(",") if c.strip())
    for code in codes:
        if not _SELECTOR.match(code):
            raise argparse.ArgumentTypeError(f"invalid rule code or prefix: {code!r}")
    return codes


def _host_port(value: str) -> str:
    """argparse type for `--tcp`: `HOST:PORT` with a numeric port."""
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(
        prog="gradguard",
        description="Find PyTorch autograd mistakes before they reach run time.",
    )
    parser.add_argument("--version", action="version", version=f"gradguard {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser(
        "check",
        help="check files or directories",
        description="Check Python files for autograd mistakes.",
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

    rule = commands.add_parser(
        "rule", help="explain a rule", description="Print a rule's documentation."
    )
    rule.add_argument("code", nargs="?", help="rule code (GG201) or name; omit to list all")
    rule.add_argument("--all", action="store_true", help="list every rule")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")

    lsp = commands.add_parser(
        "lsp", help="start the language server", description="Run the language server."
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
        )


@dataclass
class SettingsResolver:
    """Settings for each file: the nearest `[tool.gradguard]`, then command-line overrides.

    `--select` starts a fresh selection (the file's `select` and `ignore` are replaced by the
    command line's); `--ignore` alone extends the file's `ignore`. `per-file-ignores` and
    `severity` always come from the file; `--unsafe-fixes`/`--no-unsafe-fixes` win over it.
    """

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    unsafe_fixes: bool | None = None
    _nearest: dict[Path, Path | None] = field(default_factory=dict)
    _loaded: dict[Path | None, Settings] = field(default_factory=dict)

    def for_file(self, path: Path) -> Settings:
        """The effective settings for `path`; raises `SettingsError` naming file and key."""
        pyproject = self._find(path.absolute().parent)
        if pyproject not in self._loaded:
            base = load_pyproject(pyproject) if pyproject is not None else Settings()
            self._loaded[pyproject] = self._override(base)
        return self._loaded[pyproject]

    def _override(self, settings: Settings) -> Settings:
        if self.select is not None:
            settings = replace(settings, select=self.select, ignore=self.ignore or ())
        elif self.ignore is not None:
            settings = replace(settings, ignore=settings.ignore + self.ignore)
        if self.unsafe_fixes is not None:
            settings = replace(settings, unsafe_fixes=self.unsafe_fixes)
        return settings

    def _find(self, directory: Path) -> Path | None:
        # Only directories that hold a pyproject.toml are parsed; the answer is cached for
        # every directory on the way, so a large tree costs one look-up per pyproject.
        chain: list[Path] = []
        result: Path | None = None
        for folder in (directory, *directory.parents):
            if folder in self._nearest:
                result = self._nearest[folder]
                break
            chain.append(folder)
            if (folder / "pyproject.toml").is_file():
                # A broken nearest pyproject.toml stops the run (SettingsError), never
                # silently switches settings.
                result = nearest_settings_file(folder)
                break
        for folder in chain:
            self._nearest[folder] = result
        return result


@dataclass
class CheckRun:
    """The state of one `gradguard check` invocation."""

    options: CheckOptions
    out: TextIO
    err: TextIO
    settings: SettingsResolver
    reports: list[FileReport] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    fixed: int = 0
    would_fix: int = 0

    @property
    def fixing(self) -> bool:
        """True when fixes are computed (`--fix` or `--diff`)."""
        return self.options.fix or self.options.diff

    def check_file(self, path: Path, *, writable: bool = True) -> None:
        """Check (and maybe fix) one file on disk; `writable=False` reports without writing."""
        display = _display_path(path)
        try:
            decoded = read_source(path)
        except NotUtf8Error as exc:
            self.fail(display, str(exc), exc.line, exc.column)
            return
        except TooLargeError as exc:
            self.warn(display, str(exc))
            return
        except NotRegularFileError as exc:
            self.fail(display, f"cannot check: {exc}")
            return
        except OSError as exc:
            self.fail(display, f"cannot read: {exc.strerror or exc}")
            return
        settings = self.settings.for_file(path)
        if not writable and self.options.fix and not self.options.diff:
            self.warn(display, "not fixed: a symbolic link to a file outside the checked folder")
            self.check_text(display, decoded, settings, fix=False)
            return
        fixed_before, reports_before = self.fixed, len(self.reports)
        new_text = self.check_text(display, decoded, settings)
        if new_text is None or not self.options.fix or self.options.diff:
            return
        try:
            write_atomic(path, decoded.encode(new_text), expected=decoded.encode(decoded.text))
        except OSError as exc:
            reason = str(exc) if isinstance(exc, FileChangedError) else exc.strerror or exc
            self.fail(display, f"not fixed: cannot write the file: {reason}")
            # Report what is really in the file: nothing was fixed.
            self.fixed = fixed_before
            del self.reports[reports_before:]
            self.check_text(display, decoded, settings, fix=False)

    def check_stdin(self, data: bytes) -> bytes:
        """Check standard input; returns the bytes `--fix` prints (the input if unchanged)."""
        name = self.options.stdin_filename
        display = name or STDIN
        try:
            decoded = decode(data)
        except NotUtf8Error as exc:
            self.fail(display, str(exc), exc.line, exc.column)
            return data
        settings = self.settings.for_file(Path(name) if name else Path.cwd() / STDIN)
        new_text = self.check_text(display, decoded, settings)
        return data if new_text is None else decoded.encode(new_text)

    def check_text(
        self, display: str, decoded: DecodedSource, settings: Settings, *, fix: bool = True
    ) -> str | None:
        """Record the findings for one text; return the fixed text if fixing changed it."""
        try:
            return self._check_text(display, decoded, settings, fix=fix)
        except Exception as exc:  # a GradGuard bug on one file must not hide the others
            import traceback

            log.debug("internal error on %s:\n%s", display, traceback.format_exc())
            self.fail(display, f"internal error: {type(exc).__name__}: {exc} (please report)")
            return None

    def _check_text(
        self, display: str, decoded: DecodedSource, settings: Settings, *, fix: bool
    ) -> str | None:
        from gradguard.core.engine import ParseError, check_source, fix_source, parse
        from gradguard.core.text import SourceText

        text = decoded.text
        new_text: str | None = None
        if self.fixing and fix:
            fixed = fix_source(text, path=display, settings=settings, unsafe=settings.unsafe_fixes)
            result = fixed.remaining
            if fixed.text != text:
                # The engine already refuses unparsable results; this guard makes "never
                # write a file that does not parse" a property of the CLI as well.
                if isinstance(parse(SourceText(fixed.text)), ParseError):
                    self.fail(display, "a fix produced code that does not parse; not written")
                    result = check_source(text, path=display, settings=settings)
                else:
                    new_text = fixed.text
                    self._count_fixes(display, text, fixed.text, fixed.applied)
        else:
            result = check_source(text, path=display, settings=settings)
        if result.too_large is not None:
            self.warn(display, result.too_large)
        if result.parse_error is not None:
            at = result.parse_error.range.start
            self.fail(display, result.parse_error.message, at.line + 1, at.character + 1)
        for error in result.rule_errors:
            self.fail(display, f"rule {error.code} crashed: {error.message}")
        source = SourceText(new_text if new_text is not None else text)
        self.reports.append(FileReport(display, source, result.findings, settings.unsafe_fixes))
        return new_text

    def _count_fixes(self, display: str, before: str, after: str, applied: int) -> None:
        if self.options.diff:
            self.would_fix += applied
            self.diffs.append(_unified_diff(display, before, after))
        else:
            self.fixed += applied

    def warn(self, display: str, message: str) -> None:
        """A file left out on purpose (too large, not a regular file): named, not an error."""
        self.err.write(f"warning: {printable(display)}: {message}\n")

    def fail(self, display: str, message: str, line: int = 0, column: int = 0) -> None:
        from gradguard.core.findings import Position

        position = Position(line - 1, column - 1) if line else None
        failure = Failure(display, message, position)
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
    run = CheckRun(options, out, err, resolver)
    disk_paths = [p for p in options.paths if p != STDIN]
    discovery = discover(disk_paths)
    for missing in discovery.missing:
        run.fail(missing, "No such file or directory")
    for where, message in discovery.errors:
        run.fail(where, message)
    for where, message in discovery.skipped:
        run.warn(_display_path(Path(where)), message)
    fixed_stdin = b""
    try:
        for path in discovery.files:
            run.check_file(path, writable=path not in discovery.outside)
        if STDIN in options.paths:
            data = stdin if stdin is not None else sys.stdin.buffer.read()
            fixed_stdin = run.check_stdin(data)
    except SettingsError as exc:
        err.write(f"error: {exc}\n")
        return EXIT_ERROR
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


def _unified_diff(display: str, before: str, after: str) -> str:
    import difflib

    lines = difflib.unified_diff(
        _LINE.findall(before),
        _LINE.findall(after),
        fromfile=display,
        tofile=display,
    )
    out: list[str] = []
    for line in lines:
        out.append(line)
        if not line.endswith(("\n", "\r")):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)


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
