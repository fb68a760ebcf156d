"""Every finding's message leads with a short summary that names the runtime error.

Editors cut messages short (VS Code's Problems panel, Neovim's virtual text, Emacs's
diagnostics list), so the first sentence must carry the point on its own: at most 100
characters, measured on the rules' own INVALID examples with their names as they appear,
and naming what goes wrong at run time:

* when the example fails with an error torch (or Python) raises, the summary quotes a run of
  at least four words of that very error (`Invalid.error`), and the whole message contains
  the error word for word;
* when the code runs but misbehaves (`error=None`, or an `assert` of the example's own that
  shows the symptom), the summary names the misbehaviour: one of `MISBEHAVIOUR[code]`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gradguard.core.engine import check_source
from gradguard.core.findings import Finding
from gradguard.core.messages import SUMMARY_LIMIT, TorchError, compose, first_sentence
from gradguard.core.rule import Invalid, Rule, all_rules
from gradguard.core.settings import Settings

RULES = all_rules()

# Summaries allowed past the limit, with the reason. None today: keep it that way.
LONG_SUMMARIES: dict[tuple[str, int], str] = {}

# Examples whose error= comes from a later step the rule does not see in general; the
# summary names the silent effect instead of quoting that error.
INDIRECT_ERRORS = {
    ("GG112", 1): "the error needs a backward through the checkpoint output alone; what every "
    "such checkpoint does is give its module no gradient",
    ("GG404", 1): "a misspelled attribute raises nothing itself; the example's backward() fails "
    "later because the tensor never requires grad",
}

# Examples whose error the analysis cannot spell out whole: the message quotes its start.
PARTIAL_ERRORS = {
    ("GG407", 2): "`x * w.grad` raises 'unsupported operand type(s) for *: ...' followed by "
    "both operand types, and the analysis does not know the other operand's",
}

# What the summary says when the code runs but misbehaves.
MISBEHAVIOUR = {
    "GG102": ("no gradient reaches the model",),
    "GG105": ("no gradient reaches the model",),
    "GG107": ("has no effect",),
    "GG108": ("every gradient is zero",),
    "GG109": ("no gradient reaches the model",),
    "GG110": ("softmax twice",),
    "GG111": ("sigmoid twice",),
    "GG112": ("no gradient",),
    "GG113": ("expects log-probabilities",),
    "GG203": ("memory grows",),
    "GG204": ("memory grows",),
    "GG403": (".grad` is None",),
    "GG404": ("does not require grad", "still requires grad", "has no effect"),
    "GG503": ("trains nothing",),
    "GG601": ("sum of all gradients",),
    "GG602": ("has no effect",),
    "GG603": ("skips the module's hooks",),
    "GG604": ("never trains",),
    "GG605": ("updates nothing", "discards the accumulated gradients"),
    "GG606": ("times too large",),
    "GG607": ("dropout is off",),
    "GG608": ("never trains",),
    "GG609": ("still-scaled gradients",),
    "GG610": ("already exhausted", "exhausted after one iteration"),
}

_QUOTED = re.compile(r'"([^"]+)"')
_MIN_WORDS = 4


def _summary(message: str) -> str:
    """Up to the first ". " (kept apart from `first_sentence` so the test checks it too)."""
    end = message.find(". ")
    return message if end < 0 else message[: end + 1]


def _raised(example: Invalid) -> str | None:
    """The error the example raises at run time, or None when it runs and misbehaves (its
    own `assert` shows the symptom)."""
    if example.error is None or "assert" in example.code:
        return None
    return example.error


def _shares_words(quote: str, error: str) -> bool:
    """Whether `quote` and `error` have a run of `_MIN_WORDS` words (or all of the shorter
    one) in common, case aside: "only tensors of floating point ..." quotes the lower-case
    variant torch raises from the attribute setter."""
    words = quote.lower().split()
    text = " ".join(error.lower().split())
    need = min(_MIN_WORDS, len(words), len(error.split()))
    runs = (" ".join(words[i : i + need]) for i in range(len(words) - need + 1))
    return any(run in text for run in runs)


def _cases() -> list[tuple[Rule, int]]:
    return [(rule, i) for rule in RULES for i in range(len(rule.invalid))]


def _findings(rule: Rule, index: int) -> tuple[Finding, ...]:
    result = check_source(rule.invalid[index].code, settings=Settings(select=(rule.code,)))
    assert result.findings, f"{rule.code} INVALID example {index} has no finding"
    return result.findings


@pytest.mark.parametrize(("rule", "index"), _cases(), ids=lambda v: getattr(v, "code", v))
def test_summary_is_short_and_names_the_error(rule: Rule, index: int) -> None:
    example = rule.invalid[index]
    raised = _raised(example)
    for finding in _findings(rule, index):
        summary = _summary(finding.message)
        assert summary == first_sentence(finding.message)
        if (rule.code, index) not in LONG_SUMMARIES:
            assert len(summary) <= SUMMARY_LIMIT, f"{len(summary)} characters: {summary}"
        if raised is None or (rule.code, index) in INDIRECT_ERRORS:
            phrases = MISBEHAVIOUR.get(rule.code, ())
            assert any(p in summary for p in phrases), f"{summary!r} names none of {phrases}"
            continue
        quotes = _QUOTED.findall(summary)
        assert any(_shares_words(q, raised) for q in quotes), f"{summary!r} lacks {raised!r}"
        if (rule.code, index) not in PARTIAL_ERRORS:
            assert raised in finding.message, "the message should quote the error in full"


def test_the_tables_name_only_rules_and_examples_that_need_them() -> None:
    """A stale entry would let a future summary pass without naming anything."""
    rules = {rule.code: rule for rule in RULES}
    needs = {
        rule.code
        for rule in RULES
        for i, example in enumerate(rule.invalid)
        if _raised(example) is None or (rule.code, i) in INDIRECT_ERRORS
    }
    assert set(MISBEHAVIOUR) == needs
    for code, index in [*INDIRECT_ERRORS, *PARTIAL_ERRORS, *LONG_SUMMARIES]:
        assert index < len(rules[code].invalid)
    for code, index in INDIRECT_ERRORS:
        assert _raised(rules[code].invalid[index]) is not None


def test_compose_ends_the_summary_at_the_first_full_stop() -> None:
    message = compose('`x` has no graph: backward() raises "boom"', "It was cut at line 3", "")
    assert message == '`x` has no graph: backward() raises "boom". It was cut at line 3.'
    assert first_sentence(message) == '`x` has no graph: backward() raises "boom".'
    assert first_sentence("no details") == "no details"


def test_a_short_form_must_be_part_of_the_error() -> None:
    error = TorchError("element 0 of tensors does not require grad", "element 0 of tensors")
    assert error.quoted == '"element 0 of tensors"'
    assert error.in_full == 'Full error: "element 0 of tensors does not require grad"'
    assert TorchError("boom").in_full == ""
    with pytest.raises(ValueError, match="not part of"):
        TorchError("element 0 of tensors", "grad_fn")


def test_the_readme_shows_the_message_the_example_gets() -> None:
    """The README's opening example is the real first line `gradguard check` prints for it."""
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    shown = " ".join(readme.split("```text\n", 1)[1].split("```", 1)[0].split())
    location, _, rest = shown.partition(" ")
    path, line, column, _ = location.split(":")
    code, _, message = rest.partition(" ")
    source = (root / path).read_text(encoding="utf-8")
    [finding] = [f for f in check_source(source).findings if f.code == code]
    assert (finding.range.start.line + 1, finding.range.start.character + 1) == (
        int(line),
        int(column),
    )
    assert message == " ".join(finding.message.split())
