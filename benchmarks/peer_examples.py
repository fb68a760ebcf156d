"""GradGuard on its peers' own documented examples, for the rules that overlap.

    python benchmarks/peer_examples.py [--sdist torch_preflight-0.5.0.tar.gz] [--peer PATH]

The peer's examples are never committed here: the script reads them from the peer's source
distribution (pinned below), downloaded at run time with `pip download` into a temporary
directory unless `--sdist` names a copy. Examples taken from it: `examples/*.py` (whole
files), the Python code blocks of `README.md` and `docs/rules.md`, and the code snippets of
`tests/test_rules.py` (one per string literal that parses as Python). torch-preflight itself
is run when installed apart (`python -m venv /tmp/tp && /tmp/tp/bin/pip install
torch-preflight==0.5.0`); it is never a project dependency.

trainlint (PyPI, "TL" rules) is not compared: its package is not installable from this
environment's registry and its repository is not in the mirror index; the GitHub repository
named Trainlint (voidrank/Trainlint, an agent hook harness) has no rule that overlaps.

A peer finding counts as found by GradGuard when an overlapping GG code fires within
`WINDOW` lines of it. Development benchmark only: CI does not run it.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

from gradguard.core.engine import check_source

PEER_VERSION = "0.5.0"
PEER_SDIST = f"torch_preflight-{PEER_VERSION}.tar.gz"
WINDOW = 3

# Peer rule -> (overlapping GradGuard codes, why they overlap). Read from the peer's
# docs/rules.md and `torch-preflight explain CODE` (0.5.0). Peer rules left out have no
# GradGuard counterpart: TG004 DataLoader tuning, TG007 device syncs, TG008 seeding,
# TG010 projected OOM, TG012 DistributedSampler, TG013 repeated host-to-device copies.
OVERLAP: dict[str, tuple[tuple[str, ...], str]] = {
    "TG001": (
        ("GG203", "GG204"),
        "a stored tensor keeps its graph: GG203 is the running total in a training loop, "
        "GG204 the outputs stored by an evaluation loop",
    ),
    "TG002": (
        ("GG204",),
        "evaluation without no_grad; GG204 only when the outputs are kept (memory grows)",
    ),
    "TG003": (("GG601",), "backward() and step() in a loop with no zero_grad(): same claim"),
    "TG005": (
        ("GG110", "GG113"),
        "softmax output given to cross-entropy (GG110) or to nll_loss/NLLLoss (GG113): same claim",
    ),
    "TG006": (("GG111",), "sigmoid before a with-logits BCE (and logits into BCELoss): same claim"),
    "TG011": (("GG607",), "eval() in the epoch loop with no train() back: same claim"),
    "TG014": (("GG606",), "accumulation over k steps without dividing the loss: same claim"),
}

# Judgements of the overlapping peer findings GradGuard does not report, by
# (example, peer code, line): "purpose: <reason>" (silent on purpose) or "missed: <case>".
JUDGED: dict[tuple[str, str, int], str] = {
    ("examples/bad_train.py", "TG003", 45): (
        "missed: the comment `# ... optimizer.zero_grad()` on the backward line is read as a "
        "clearing call (text gate); tests/corpus/real/gg601/peer_examples_torch_preflight.py"
    ),
    ("examples/bad_train.py", "TG001", 48): (
        "purpose: `losses.append(loss)` after backward() keeps graph nodes, not activations "
        "(the peer's own warning level); GG203 claims running totals only"
    ),
    ("examples/bad_train.py", "TG005", 19): (
        "purpose: nn.Softmax ends a model class, but `train()` gets `model` as a parameter: "
        "nothing proves that this class is the model given to the loss"
    ),
    ("examples/bad_train.py", "TG002", 58): (
        "purpose: nothing is kept (`print(val_loss.item())`), each batch's graph is freed; "
        "wasted recording, not growing memory; GG204 claims kept outputs"
    ),
    ("examples/bad_train.py", "TG002", 122): (
        "purpose: only `.sum().item()` is kept; wasted recording, nothing retained"
    ),
}
_T = "tests/test_rules.py::"
_APPEND = (
    "purpose: a loss stored in a container (append, `d[k] =`) of a training step; GG203 "
    "claims running totals, GG204 evaluation loops after eval(): no GradGuard rule claims it"
)
_AFTER = "purpose: stored after backward(): graph nodes, not activations (peer's own warning)"
_NOTHING_KEPT = (
    "purpose: each output is dropped (or only the last returned): wasted recording, memory "
    "does not grow; GG204 claims kept outputs"
)
_CRITERION = (
    "purpose: the snippet never says `torch`, and GradGuard skips such files (prefilter "
    "`mentions_torch`); with `import torch` added it reports it"
)
_UNLINKED = "purpose: the activation layer and the loss are never connected in the snippet"
_UNKNOWN_MODEL = "purpose: `model`/`rnn` is a parameter: its last layer is not known"
_FRAGMENT = "purpose: a README fragment; names undefined, nothing claimed (append, no eval())"
JUDGED.update(
    {
        ("README.md#block1", "TG001", 3): _FRAGMENT,
        ("README.md#block2", "TG001", 4): _AFTER,
        (_T + "test_tg001_flags_appending_attached_loss#1", "TG001", 8): _AFTER,
        (_T + "test_tg001_flags_augmented_accumulation#2", "TG001", 8): _CRITERION,
        (_T + "test_tg001_errors_when_nothing_backwards_the_stored_tensor#1", "TG001", 7): _APPEND,
        (
            _T + "test_tg001_returning_a_bare_container_is_not_evidence_of_a_deferred_backward#2",
            "TG001",
            5,
        ): "purpose: the container is returned; a caller may backpropagate it",
        (_T + "test_tg001_flags_dict_and_self_containers#1", "TG001", 7): _AFTER,
        (_T + "test_tg001_flags_self_attribute_container_without_a_loop#1", "TG001", 5): _APPEND,
        (
            _T + "test_tg001_still_fires_when_the_helper_returns_a_live_tensor#2",
            "TG001",
            10,
        ): "purpose: the container is returned; a caller may backpropagate it",
        (
            _T + "test_tg001_absence_of_proof_is_not_evidence_of_detachment#2",
            "TG001",
            7,
        ): "purpose: `compute_loss` is not in the snippet: the stored value is unknown",
        (_T + "test_tg001_absence_of_proof_is_not_evidence_of_detachment#3", "TG001", 8): _AFTER,
        (_T + "test_tg001_accelerator_backward_still_marks_its_argument#1", "TG001", 9): _AFTER,
        (
            _T + "test_tg001_still_fires_when_the_container_is_only_reduced_for_logging#2",
            "TG001",
            7,
        ): _APPEND,
        (_T + "test_tg001_exemption_does_not_leak_between_functions#2", "TG001", 14): _AFTER,
        (
            _T + "test_autograd_grad_with_create_graph_still_retains#1",
            "TG001",
            8,
        ): "purpose: higher-order gradients returned to the caller, who may backpropagate them",
        (_T + "test_tg002_flags_eval_function_without_no_grad#1", "TG002", 6): _NOTHING_KEPT,
        (_T + "test_tg002_offers_no_fix_when_torch_is_not_imported#1", "TG002", 4): _NOTHING_KEPT,
        (
            _T + "test_tg002_flags_inline_validation_loop_inside_training#1",
            "TG002",
            7,
        ): _NOTHING_KEPT,
        (
            _T + "test_tg002_still_flags_a_real_model_loaded_with_from_pretrained#1",
            "TG002",
            8,
        ): _NOTHING_KEPT,
        (_T + "test_tg002_quiet_when_guarded#2", "TG002", 4): _NOTHING_KEPT,
        (_T + "test_tg002_still_fires_on_a_real_validation_loader#1", "TG002", 8): _NOTHING_KEPT,
        (_T + "test_accelerator_prepare_is_still_a_model_wrapper#1", "TG002", 5): _NOTHING_KEPT,
        (_T + "test_a_model_in_an_enclosing_scope_is_still_visible#1", "TG002", 10): _NOTHING_KEPT,
        (_T + "test_tg011_flags_train_called_only_before_the_loop#1", "TG002", 11): _NOTHING_KEPT,
        (_T + "test_tg011_silent_without_a_backward_pass#1", "TG002", 6): _NOTHING_KEPT,
        (_T + "test_tg011_silent_outside_any_loop#1", "TG002", 9): _NOTHING_KEPT,
        (_T + "test_tg007_silent_for_one_sync_per_validation_batch#2", "TG002", 9): _NOTHING_KEPT,
        (_T + "test_tg003_flags_backward_without_zero_grad#1", "TG003", 5): _CRITERION,
        (_T + "test_tg003_still_fires_with_an_optimizer_step#1", "TG003", 5): _CRITERION,
        (_T + "test_tg011_silent_without_a_validation_pass#1", "TG003", 7): _CRITERION,
        (_T + "test_tg011_silent_outside_any_loop#1", "TG003", 5): _CRITERION,
        (_T + "test_tg007_flags_a_sync_in_a_nested_loop#1", "TG003", 7): _CRITERION,
        (_T + "test_tg007_does_not_flag_its_own_recommended_fix#2", "TG003", 5): _CRITERION,
        (_T + "test_tg007_does_not_contradict_tg001#2", "TG003", 7): _CRITERION,
        (_T + "test_tg007_silent_for_a_sync_outside_the_loop#1", "TG003", 5): _CRITERION,
        (_T + "test_tg007_silent_for_one_sync_per_validation_batch#2", "TG003", 6): _CRITERION,
        (_T + "test_tg005_flags_softmax_layer_in_model#1", "TG005", 5): _UNLINKED,
        (
            _T + "test_tg005_still_flags_a_real_softmax_layer_reaching_nll_loss#2",
            "TG005",
            13,
        ): "purpose: softmax into NLLLoss (GG113's claim) through `rnn.softmax`, where `rnn` "
        "is a parameter no call site in the snippet binds: what its attribute holds is unknown",
        (_T + "test_tg006_flags_raw_logits_into_plain_bce#1", "TG006", 7): _UNKNOWN_MODEL,
        (
            _T + "test_tg006_warns_on_the_numerically_fragile_but_correct_pairing#1",
            "TG006",
            7,
        ): "purpose: sigmoid into BCELoss is the correct pairing (peer: numerically fragile)",
        (
            _T + "test_tg006_does_not_confuse_two_criterions_in_different_scopes#2",
            "TG006",
            7,
        ): "purpose: sigmoid into BCELoss is the correct pairing (peer: numerically fragile)",
        (_T + "test_tg006_flags_sequential_ending_in_sigmoid#1", "TG006", 6): _UNLINKED,
        (
            _T + "test_tg014_handles_an_integer_divisor#1",
            "TG014",
            5,
        ): "purpose: the loss is a `.sum()` of the output: summing is the convention chosen "
        "(GG606 stays silent on summed losses)",
    }
)


@dataclass(frozen=True)
class Example:
    """One documented example: where it comes from and its source text."""

    name: str
    source: str


def fetch_sdist(directory: Path) -> Path:
    """Download the pinned sdist of torch-preflight into `directory`."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--no-binary",
            ":all:",
            "-d",
            str(directory),
            f"torch-preflight=={PEER_VERSION}",
        ],
        check=True,
    )
    return directory / PEER_SDIST


def code_blocks(name: str, text: str) -> list[Example]:
    """The ```python blocks of a Markdown text that parse as Python."""
    found = []
    for index, match in enumerate(re.finditer(r"```python\n(.*?)```", text, re.S)):
        source = match.group(1)
        if _parses(source):
            found.append(Example(f"{name}#block{index + 1}", source))
    return found


def test_snippets(name: str, text: str) -> list[Example]:
    """The string literals of each test function that parse as Python code."""
    found = []
    for node in ast.parse(text).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        strings = [
            n.value
            for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and "\n" in n.value
        ]
        for index, value in enumerate(strings):
            source = textwrap.dedent(value)
            if _parses(source) and re.search(r"\b(def|for|import)\b", source):
                found.append(Example(f"{name}::{node.name}#{index + 1}", source))
    return found


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


def examples_from(sdist: Path) -> list[Example]:
    """Every documented example of the peer's source distribution."""
    found: list[Example] = []
    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[1]: m for m in archive.getmembers() if "/" in m.name}

        def read(path: str) -> str:
            handle = archive.extractfile(members[path])
            assert handle is not None
            return handle.read().decode("utf-8")

        for path in sorted(p for p in members if re.fullmatch(r"examples/[^/]+\.py", p)):
            found.append(Example(path, read(path)))
        for path in ("README.md", "docs/rules.md"):
            found.extend(code_blocks(path, read(path)))
        found.extend(test_snippets("tests/test_rules.py", read("tests/test_rules.py")))
    return found


def peer_findings(peer: str | None, example: Example, scratch: Path) -> list[tuple[str, int]]:
    """(code, line) of the peer's findings in an overlapping rule."""
    if peer is None:
        return []
    path = scratch / "example.py"
    path.write_text(example.source, encoding="utf-8")
    done = subprocess.run(
        [peer, "check", "-f", "json", "--select", ",".join(OVERLAP), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        data = json.loads(done.stdout or "{}")
    except json.JSONDecodeError:
        return []
    items = data.get("diagnostics", []) if isinstance(data, dict) else []
    return sorted({(i["code"], i["line"]) for i in items if i.get("code") in OVERLAP})


def ours(example: Example) -> list[tuple[str, int]]:
    """(code, line) of GradGuard's findings."""
    result = check_source(example.source, path=example.name)
    return sorted({(f.code, f.range.start.line + 1) for f in result.findings})


def near(codes: tuple[str, ...], line: int, findings: list[tuple[str, int]]) -> bool:
    return any(c in codes and abs(n - line) <= WINDOW for c, n in findings)


Row = tuple[Example, list[tuple[str, int]], list[tuple[str, int]]]
_COLUMNS = ("examples", "peer", "both", "purpose", "missed", "unjudged", "only")


def rule_row(code: str, rows: list[Row], notes: list[str], only: list[str]) -> str:
    """The table row of one peer rule; its unreported findings go to `notes` and `only`."""
    gg = OVERLAP[code][0]
    counts = dict.fromkeys(_COLUMNS, 0)
    for example, theirs, mine in rows:
        hits = [n for c, n in theirs if c == code]
        mine_here = [(c, n) for c, n in mine if c in gg]
        counts["examples"] += bool(hits or mine_here)
        for line in hits:
            counts["peer"] += 1
            if near(gg, line, mine):
                counts["both"] += 1
                continue
            verdict = JUDGED.get((example.name, code, line), "unjudged")
            kind = verdict.split(":", 1)[0]
            counts[kind if kind in ("purpose", "missed") else "unjudged"] += 1
            notes.append(f"* {code} {example.name}:{line}: {verdict}")
        for mine_code, line in mine_here:
            if not near((code,), line, theirs):
                counts["only"] += 1
                only.append(f"* {mine_code} {example.name}:{line} (no {code} near it)")
    cells = " | ".join(str(counts[c]) for c in _COLUMNS)
    return f"| {code} | {', '.join(gg)} | {cells} |"


def table(rows: list[Row]) -> str:
    """The Markdown summary: one row per overlapping peer rule, then the details."""
    lines = [
        "| Peer rule | GradGuard | examples | peer finds | GradGuard finds too "
        "| silent on purpose | missed | unjudged | GradGuard only |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    notes: list[str] = []
    only: list[str] = []
    lines.extend(rule_row(code, rows, notes, only) for code in OVERLAP)
    mapping = [f"* {code} -> {', '.join(gg)}: {why}" for code, (gg, why) in OVERLAP.items()]
    lines += ["", "Mapping:", *mapping, "", "Peer findings GradGuard does not report:"]
    lines += [*notes, "", "GradGuard findings the peer does not report:", *only]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdist", type=Path, help=f"a local copy of {PEER_SDIST}")
    parser.add_argument("--peer", help="the torch-preflight executable")
    args = parser.parse_args(argv)
    peer = args.peer or shutil.which("torch-preflight")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        sdist = args.sdist or fetch_sdist(scratch)
        rows: list[Row] = []
        for example in examples_from(sdist):
            rows.append((example, peer_findings(peer, example, scratch), ours(example)))
    print(
        f"torch-preflight {PEER_VERSION} ({PEER_SDIST}), {len(rows)} examples, "
        f"peer run: {'yes' if peer else 'no (not installed)'}\n"
    )
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
