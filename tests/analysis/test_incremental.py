"""Incremental analysis across edits (`gradguard.analysis.incremental`) gives exactly the
findings (messages, ranges, fixes) a fresh check of the same text gives, after every edit of
random edit sequences; the common edit really takes the fast path; a grafted tree is the
tree `ast.parse` gives.

`GRADGUARD_INCREMENTAL_EDITS=<n>` runs n edits per file instead of the CI default (the
longer run a change to the analysis should get)."""

from __future__ import annotations

import ast
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

from gradguard.analysis.incremental import (
    _MODULE_WALK,
    _TYPE_INDEX,
    Incremental,
    State,
    _changed_span,
)
from gradguard.analysis.model import ModuleAnalysis
from gradguard.analysis.node_cache import answer_in
from gradguard.core.engine import check_source
from gradguard.core.settings import Settings
from gradguard.lsp.incremental import check
from tests.test_corpus import corpus_files

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
_EDITS = int(os.environ.get("GRADGUARD_INCREMENTAL_EDITS", "12"))
# More files for the longer run (paths separated by os.pathsep), e.g. large real modules.
_EXTRA = [Path(p) for p in os.environ.get("GRADGUARD_INCREMENTAL_FILES", "").split(os.pathsep) if p]
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+|[^\s\w]")
_TYPED = ["x = 1", "loss.backward()", "h = h.detach()", "y = x.item()", "pass", "opt.step()"]


def _files() -> list[Path]:
    chosen = sorted(corpus_files())[::5][:6] + EXAMPLES[:3] + _EXTRA
    return [p for p in chosen if "torch" in p.read_text(encoding="utf-8")]


def _shown(text: str | None, result: object) -> object:
    findings = getattr(result, "findings", None)
    return [(f.code, f.message, f.range, f.severity, f.fixes) for f in findings or ()]


def _code_lines(text: str) -> list[int]:
    """Indexes of lines inside an indented block (where most edits land in a function)."""
    return [i for i, line in enumerate(text.split("\n")) if line.startswith((" ", "\t"))]


def _edit(text: str, rng: random.Random) -> str:
    """One random edit; nine in ten keep the file parsable (a half-typed file mostly takes
    the recovery path, which the incremental check leaves to the caller)."""
    broken = rng.random() < 0.1
    for _ in range(20):
        edited = _any_edit(text, rng)
        if broken or _parses(edited):
            return edited
    return text


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def _any_edit(text: str, rng: random.Random) -> str:
    """One random edit: insert or delete a character, replace a token, type a line."""
    lines = text.split("\n")
    candidates = _code_lines(text) or list(range(len(lines)))
    i = rng.choice(candidates)
    line = lines[i]
    kind = rng.randrange(5)
    if kind == 0:
        at = rng.randrange(len(line) + 1)
        lines[i] = line[:at] + rng.choice("abz_1 ().,:+") + line[at:]
    elif kind == 1 and line:
        at = rng.randrange(len(line))
        lines[i] = line[:at] + line[at + 1 :]
    elif kind == 2:
        tokens = list(_TOKEN.finditer(line))
        if tokens:
            token = rng.choice(tokens)
            new = rng.choice(["h", "loss", "self", "0", "detach", "no_grad", "item"])
            lines[i] = line[: token.start()] + new + line[token.end() :]
    elif kind == 3:
        indent = line[: len(line) - len(line.lstrip())]
        lines[i] = indent + rng.choice(_TYPED)
    else:
        # A comment typed on a line of its own (a blank line's) or into one.
        comments = [n for n, text in enumerate(lines) if not text.strip() or "#" in text]
        n = rng.choice(comments or [i])
        lines[n] += rng.choice(["#", " x", ".backward(", " eval()", "y"])
    return "\n".join(lines)


class _Checked(Incremental):
    """`Incremental` that checks every analysis it makes names no node an edit replaced."""

    def analyse(
        self, key: str, *args: Any, **kwargs: Any
    ) -> tuple[ast.Module, ModuleAnalysis, State] | None:
        done = super().analyse(key, *args, **kwargs)
        if done is not None:
            replaced = {id(node) for old in done[2].retired for node in ast.walk(old)}
            _names_no_replaced_node(done[1], replaced)
        return done


def _names_no_replaced_node(analysis: ModuleAnalysis, replaced: set[int]) -> None:
    """No statement, call or node the analysis's entries point at is an old node of an
    edited function (a replayed entry naming one would be stale). Nodes the analysis makes
    itself are not the tree's either, so only the replaced ones are looked for."""
    entries: list[object] = [
        *analysis.backward_calls,
        *analysis.inplace_on_saved,
        *analysis.torch_calls,
        *analysis.events,
        *analysis.opaque_calls,
    ]
    for entry in entries:
        nodes = [entry] if isinstance(entry, ast.AST) else []
        nodes += [getattr(entry, name, None) for name in ("stmt", "call", "node", "target")]
        for node in nodes:
            assert id(node) not in replaced, (type(entry).__name__, ast.dump(node)[:80])


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_incremental_equals_fresh_after_every_edit(path: Path) -> None:
    original = path.read_text(encoding="utf-8")
    rng = random.Random(path.name)
    incremental = _Checked()
    settings = Settings()
    text = original
    history = [text]
    for _ in range(_EDITS):
        if len(history) > 1 and rng.random() < 0.15:
            history.pop()  # undo
            text = history[-1]
        else:
            text = _edit(text, rng)
            history.append(text)
        found = check(incremental, "doc", text, path=str(path), settings=settings)
        fresh = check_source(text, path=str(path), settings=settings)
        if found is None:
            assert fresh.parse_error is not None or fresh.skipped or fresh.too_large
            continue
        assert _shown(text, found) == _shown(text, fresh)


def _assignment_site(text: str) -> tuple[int, int]:
    """Where the name a statement `name = ...` of a function binds ends (0-based line and
    column; the first such statement)."""
    for function in ast.walk(ast.parse(text)):
        if isinstance(function, ast.FunctionDef):
            for stmt in function.body:
                if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                    target = stmt.targets[0]
                    assert target.end_col_offset is not None
                    return target.lineno - 1, target.end_col_offset
    raise AssertionError("no assignment in a function")


def test_typing_in_a_function_grafts_and_replays() -> None:
    path = ROOT / "examples" / "buggy_lstm_cell.py"
    text = path.read_text(encoding="utf-8")
    incremental = Incremental()
    settings = Settings()
    for _ in range(2):  # opened, then checked again: a state is kept from then on
        check(incremental, "doc", text, path=str(path), settings=settings)
    line, column = _assignment_site(text)
    lines = text.split("\n")
    for _ in range(5):
        lines[line] = lines[line][:column] + "z" + lines[line][column:]
        column += 1
        edited = "\n".join(lines)
        found = check(incremental, "doc", edited, path=str(path), settings=settings)
        assert found is not None
        assert _shown(edited, found) == _shown(edited, check_source(edited, path=str(path)))
        state = incremental.states["doc"]
        tree = state.tree
        assert ast.dump(tree, include_attributes=True) == ast.dump(
            ast.parse(edited), include_attributes=True
        )
        # The module walk the check used (patched from the last one) is a fresh walk's.
        kept = answer_in(state.stores, _MODULE_WALK, tree)
        assert kept is not None
        fresh = _MODULE_WALK(tree)
        assert kept[0] == fresh[0]
        assert kept[1] == fresh[1]
        # So is its index by node type (patched too).
        indexed = answer_in(state.stores, _TYPE_INDEX, tree)
        assert indexed is not None and indexed[0] is kept[0]
        by_type: dict[type, list[int]] = {}
        for position, node in enumerate(fresh[0]):
            by_type.setdefault(type(node), []).append(position)
        assert indexed[1] == by_type
    counters = incremental.counters
    assert counters.grafted == 5
    assert counters.patched_walks == 5
    assert counters.full == 2  # only the first two analyses
    assert counters.replayed_steps > 0  # the constants step and the other function at least


_KEEPS_COMPUTED = """\
import torch
from torch import nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = torch.randn(3, requires_grad=True)
        self.weight = self.base * 0.5

    def forward(self, x):
        return x * self.weight


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        h = self.proj(x)
        return h.relu()


def train(model, x):
    out = model(x)
    loss = out.sum()
    loss.backward()
"""


def test_an_edit_beside_a_constructor_kept_tensor_replays_the_rest() -> None:
    """A class whose `__init__` keeps a computed tensor (`ClassInfo.computed`, found by a
    scratch run of `__init__` in the module-level step) must not make every edit analyse
    the whole file again: what that step reads of the whole file (where grad-mode switches
    are named, which attributes are mentioned) is compared for the new tree instead."""
    incremental, run = _typed_in_turn(_KEEPS_COMPUTED, "        h = self.proj(x)", "kept.py")
    assert incremental.counters.grafted == 3
    # Only the edited `forward` runs again (nothing reads its summary): the module-level
    # step, with its scratch run of `Scaled.__init__`, and the other functions replay.
    assert incremental.counters.run_steps - run == 3


def _typed_in_turn(text: str, line: str, path: str) -> tuple[Incremental, int]:
    """Three edits in turn of `line` (`h = ...` becomes `ha = h = ...`, then more), each
    checked incrementally and compared with a fresh check: the checker, and how many steps
    it had run before the edits."""
    incremental = Incremental()
    settings = Settings()
    for _ in range(2):
        check(incremental, "doc", text, path=path, settings=settings)
    run = incremental.counters.run_steps
    lines = text.split("\n")
    at = lines.index(line)
    for letter in "abc":
        lines[at] = lines[at].replace("h =", f"h{letter} = h =", 1)
        edited = "\n".join(lines)
        found = check(incremental, "doc", edited, path=path, settings=settings)
        assert found is not None
        assert _shown(edited, found) == _shown(edited, check_source(edited, path=path))
    return incremental, run


def test_typing_in_a_comment_keeps_the_tree() -> None:
    path = ROOT / "examples" / "buggy_lstm_cell.py"
    text = path.read_text(encoding="utf-8") + "# a note"
    incremental = Incremental()
    for _ in range(2):
        check(incremental, "doc", text, path=str(path), settings=Settings())
    tree = incremental.states["doc"].tree
    steps = (incremental.counters.replayed_steps, incremental.counters.run_steps)
    for letter in "abc":
        text += letter
        found = check(incremental, "doc", text, path=str(path), settings=Settings())
        assert found is not None
        assert _shown(text, found) == _shown(text, check_source(text, path=str(path)))
    assert incremental.states["doc"].tree is tree
    assert (incremental.counters.comments, incremental.counters.full) == (3, 2)
    # Nothing the analysis reads off the text changed: the analysis is the last one.
    assert incremental.counters.kept_analyses == 3
    assert (incremental.counters.replayed_steps, incremental.counters.run_steps) == steps


def test_a_comment_naming_what_the_analysis_reads_analyses_again() -> None:
    """A comment is text: one naming `detach_` or `.backward(` changes what the analysis
    reads off the text, so the edit is analysed again (and the findings still equal a fresh
    check's); one naming a call inside a function keeps the tree."""
    path = ROOT / "examples" / "buggy_lstm_cell.py"
    text = path.read_text(encoding="utf-8") + "# a note"
    incremental = Incremental()
    for _ in range(2):
        check(incremental, "doc", text, path=str(path), settings=Settings())
    for typed in (" on detach_", " then loss.backward()"):
        text += typed
        found = check(incremental, "doc", text, path=str(path), settings=Settings())
        assert found is not None
        assert _shown(text, found) == _shown(text, check_source(text, path=str(path)))
    assert incremental.counters.fallbacks == {"detach_ text": 1, "backward lines": 1}
    assert incremental.counters.kept_analyses == 0
    lines = text.split("\n")
    function = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef))
    last = function.body[-1]
    inside = last.lineno - 1  # a comment line before the function's last statement
    lines.insert(inside, " " * last.col_offset + "# forward(x) is called here")
    lines.pop()  # the same line count: an edit of comments only
    for _ in range(2):  # a new text (a state first), then a comment in a function
        found = check(incremental, "doc", "\n".join(lines), path=str(path), settings=Settings())
        lines[inside] += " again"
    assert incremental.counters.kept_analyses == 1


def test_edit_outside_a_function_takes_the_full_path() -> None:
    path = ROOT / "examples" / "buggy_rnn_hidden_state.py"
    text = path.read_text(encoding="utf-8")
    incremental = Incremental()
    for _ in range(2):
        check(incremental, "doc", text, path=str(path), settings=Settings())
    edited = "import os\n" + text
    check(incremental, "doc", edited, path=str(path), settings=Settings())
    assert incremental.states["doc"].text == edited
    assert (incremental.counters.grafted, incremental.counters.full) == (0, 3)


def test_a_document_only_opened_keeps_no_state() -> None:
    path = ROOT / "examples" / "buggy_rnn_hidden_state.py"
    incremental = Incremental()
    check(incremental, "doc", path.read_text(encoding="utf-8"), path=str(path), settings=Settings())
    assert incremental.states == {}


def test_states_kept_stay_within_their_line_budget() -> None:
    """The documents edited last keep their states up to `limit` documents and a total line
    budget; the last edited document's state is kept whatever its size."""
    path = ROOT / "examples" / "buggy_rnn_hidden_state.py"
    text = path.read_text(encoding="utf-8")
    lines = text.count("\n") + 1
    incremental = Incremental(limit=4, budget_lines=2 * lines)
    for key in ("a", "b", "c"):
        for _ in range(2):
            check(incremental, key, text, path=str(path), settings=Settings())
    assert list(incremental.states) == ["b", "c"]  # "a" went: three would pass the budget
    big = text + "\n" * (3 * lines)
    for _ in range(2):
        check(incremental, "big", big, path=str(path), settings=Settings())
    assert list(incremental.states) == ["big"]  # over the budget alone, and still kept


_SCENARIO = """import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)
        self.history = []

    def forward(self, x):
        h = self.fc(x)
        return h

    def remember(self, loss):
        self.history.append(loss)


def train(model, data):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    total = 0
    for x in data:
        loss = model(x).sum()
        loss.backward()
        opt.step()
        total = total + loss
    return total


def main():
    model = Net()
    train(model, [torch.randn(2, 4)])
"""

# (old, new) replacements applied one after the other; each keeps the line count.
_EDITS_IN_TURN = [
    ("        h = self.fc(x)", "        hz = self.fc(x)"),  # a local name
    ("        return h\n", "        return hz\n"),
    ("        total = total + loss", "        total = total + loss.item()"),  # a conversion
    ("        opt.step()", "        opt.zero_grad()"),  # another optimizer call
    ("        self.history.append(loss)", "        self.history.append(loss.detach())"),
    ("    def remember(self, loss):", "    def remember(self, loss, extra=None):"),  # header
    ("        self.history = []", "        self.history = None"),  # in __init__
    ("    model = Net()", "    model = Net().eval()"),  # a mode switch: file-wide facts
    ("        loss.backward()", "        loss.backward()  # .backward( again"),
    ("    total = 0", "    total = 0  # a comment"),
    ("    return total\n", "    yield total\n"),  # a generator now
    ("        hz = self.fc(x)", "        self.fc2 = self.fc(x)"),  # a store into self
]


def test_edits_in_turn_equal_fresh_checks() -> None:
    text = _SCENARIO
    incremental = _Checked()
    settings = Settings()
    for _ in range(2):
        check(incremental, "doc", text, path="scenario.py", settings=settings)
    for old, new in _EDITS_IN_TURN:
        assert old in text, old
        text = text.replace(old, new, 1)
        found = check(incremental, "doc", text, path="scenario.py", settings=settings)
        assert found is not None
        fresh = check_source(text, path="scenario.py", settings=settings)
        assert _shown(text, found) == _shown(text, fresh), (old, new)
    assert incremental.counters.grafted >= 6


_OUTPUTS = """
from dataclasses import dataclass

import torch
from torch import nn


class ModelOutput(dict):
    pass


@dataclass
class Output(ModelOutput):
    logits: object = None


@dataclass
class Config:
    hidden: int = 4


def forward(net, x):
    hidden = net(x)
    return Output(logits=hidden)


def train(net, x):
    cfg = Config()
    out = forward(net, torch.randn(2, cfg.hidden))
    out.logits.sum().backward()
"""


def _grafted_edits(text: str, site: tuple[int, int]) -> Incremental:
    """Five one-letter edits at `site` (0-based line and column), each checked
    incrementally and compared with a fresh check; the `Incremental` that made them."""
    incremental = Incremental()
    settings = Settings()
    for _ in range(2):
        check(incremental, "doc", text, path="outputs.py", settings=settings)
    line, column = site
    lines = text.split("\n")
    for _ in range(5):
        lines[line] = lines[line][:column] + "z" + lines[line][column:]
        column += 1
        edited = "\n".join(lines)
        found = check(incremental, "doc", edited, path="outputs.py", settings=settings)
        assert found is not None
        assert _shown(edited, found) == _shown(edited, check_source(edited, path="outputs.py"))
    return incremental


@pytest.mark.parametrize("config_base", ["", "(dict)"])
def test_edits_away_from_settings_keep_grafting(config_base: str) -> None:
    """An edit of a function that builds no settings instance leaves the file's settings
    facts equal (a certain `Config()` or none): the edit grafts."""
    text = _OUTPUTS.replace("class Config:", f"class Config{config_base}:")
    incremental = _grafted_edits(text, _assignment_site(text))
    assert incremental.counters.full == 2
    assert not incremental.counters.fallbacks


def test_an_edit_rebuilding_a_settings_instance_analyses_in_full() -> None:
    """Typing in the statement that builds the certain `Config()` replaces that call: the
    settings facts keyed by it differ, and the file is analysed in full."""
    lines = _OUTPUTS.split("\n")
    line = next(i for i, text in enumerate(lines) if "cfg = Config()" in text)
    incremental = _grafted_edits(_OUTPUTS, (line, lines[line].index("cfg") + 3))
    assert incremental.counters.fallbacks["config instances"] == 5


_COMMAND_LINE = """
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--hidden", type=int, default=4)
parser.add_argument("--freeze", action="store_true", default=True)
args = parser.parse_args()


def build():
    net = nn.Linear(args.hidden, 1)
    if args.freeze:
        net.requires_grad_(False)
    return net


def train(net, x):
    loss = net(x).sum()
    loss.backward()
"""


def test_edits_away_from_the_parser_keep_grafting() -> None:
    """A script parsing its command line at module level: an edit inside a function leaves
    the parsed namespace (a whole-file fact keyed by the `parse_args` call) equal, so it
    grafts, and the check equals a fresh one."""
    lines = _COMMAND_LINE.split("\n")
    line = next(i for i, text in enumerate(lines) if "loss = net(x)" in text)
    incremental = _grafted_edits(_COMMAND_LINE, (line, lines[line].index("loss") + 4))
    assert incremental.counters.full == 2
    assert not incremental.counters.fallbacks


_DYNAMIC_ATTRIBUTES = """
import torch
from torch import nn


class Settings:
    hidden = 4


def configure(obj, **options):
    for name, value in options.items():
        setattr(obj, name, value)


def train(net, x):
    loss = net(x).sum()
    loss.backward()
"""


def test_a_file_calling_setattr_keeps_grafting() -> None:
    """`setattr` makes every attribute name possibly stored (a whole-file fact): an edit
    elsewhere leaves it, so it grafts (it used to take the full path on every edit of
    such a file, transformers' modeling_utils.py among them)."""
    lines = _DYNAMIC_ATTRIBUTES.split("\n")
    line = next(i for i, text in enumerate(lines) if "loss = net(x)" in text)
    incremental = _grafted_edits(_DYNAMIC_ATTRIBUTES, (line, lines[line].index("loss") + 4))
    assert incremental.counters.full == 2
    assert not incremental.counters.fallbacks


def test_an_edit_widening_a_freeze_reaches_other_functions() -> None:
    """Freezing the whole model instead of its embedding, inside one helper, changes which
    layers of the blocks' `forward` train (`FileSyntax.outside_freezes`): the finding in
    another class goes, as in a fresh check."""
    path = (
        Path(__file__).parents[1] / "corpus/gg112/checkpointed_blocks_behind_a_frozen_embedding.py"
    )
    text = path.read_text(encoding="utf-8")
    incremental = _Checked()
    settings = Settings()
    for _ in range(2):
        found = check(incremental, "doc", text, path=str(path), settings=settings)
    assert found is not None and "GG112" in str(_shown(text, found))
    old = "    for weight in model.tokens.parameters():"
    assert old in text
    text = text.replace(old, "    for weight in model.parameters():", 1)
    found = check(incremental, "doc", text, path=str(path), settings=settings)
    fresh = check_source(text, path=str(path), settings=settings)
    assert found is not None
    assert _shown(text, found) == _shown(text, fresh)
    assert "GG112" not in str(_shown(text, fresh))


_SETS_BY_NAME = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def set_layer(self, value: nn.Module):
        name = "fc"
        setattr(self, name, value)

    def forward(self, x):
        h = self.fc(x)
        return h.relu()


def train(model, x):
    out = model(x)
    loss = out.sum()
    loss.backward()
"""


def test_an_edit_beside_a_setattr_replays_it() -> None:
    """The step interpreting `setattr(self, name, value)` finds the statement's block in its
    own function (`walk.statement_block`), not in the module's walk, which the edit of
    `forward` changes: it replays, and only the edited `forward` runs again."""
    incremental, run = _typed_in_turn(_SETS_BY_NAME, "        h = self.fc(x)", "sets.py")
    assert incremental.counters.grafted == 3
    assert incremental.counters.run_steps - run == 3


def _naive_span(old: list[str], new: list[str]) -> tuple[int, int] | None:
    differing = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    return (differing[0], differing[-1]) if differing else None


@pytest.mark.parametrize("count", [1, 2, 63, 64, 65, 128, 129, 200])
def test_the_changed_span_is_the_first_and_last_differing_line(count: int) -> None:
    """Lines are compared run by run: the span is still the first and last line that
    differ, as a comparison of every line finds them, for changes at and around the ends
    of the runs (every pair of them)."""
    lines = [f"line {i}" for i in range(count)]
    near = {0, 1, 62, 63, 64, 65, 127, 128, count - 66, count - 65, count - 64, count - 2}
    places = sorted(i for i in near | {count - 1} if 0 <= i < count)
    old = "\n".join(lines)
    assert _changed_span(old, old) is None
    assert _changed_span(old, old + "\nmore") is None  # another line count
    for a in places:
        for b in places:
            new = list(lines)
            new[a], new[b] = "changed", "changed too"
            span = _changed_span(old, "\n".join(new))
            assert span is not None and span[2:] == _naive_span(lines, new)
