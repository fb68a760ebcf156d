"""Property-based tests: the whole engine on generated programs keeps every promise.

Two sources of programs: hypothesmith (any valid Python, from the grammar or from libcst's
node types) and `torch_programs` (training-loop fragments composed by a grammar of our own,
in varied layouts). For each: no exception escapes, no rule crashes, every range lies inside
the file, fix-all is idempotent and parses, and every single fix keeps the fix invariants of
`invariants.checks`. This is the CI-sized run; `benchmarks/fuzz_long.py` runs 10,000+.
"""

from __future__ import annotations

import hypothesmith
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from invariants.checks import Tally, check_everything, parses

from fuzz.programs import ALL_MOTIFS, _logical_lines, torch_programs

# Generated programs are big and slow to build; that is the point, not a health problem.
FUZZ = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# hypothesmith programs rarely say `torch`; make the engine analyse them anyway, with and
# without torch imports in scope (a `from __future__` import then becomes a parse error,
# which is one more path through the engine).
PREFIXES = st.sampled_from(
    ["import torch\n", "# torch\n", "import torch as T\nfrom torch import nn\n"]
)


def _record(tally: Tally) -> None:
    event(f"findings: {min(tally.findings, 3)}{'+' if tally.findings >= 3 else ''}")
    if tally.fixes:
        event("has fixes")


# Found by benchmarks/fuzz_long.py: GG102 moved `loss = loss.item()  # note` below
# backward() without its comment.
MOVED_WITH_COMMENT = (
    "import torch\nfrom torch import nn\nmodel = nn.Linear(2, 1)\n"
    "loss = model(torch.randn(4, 2)).pow(2).mean()\nloss = loss.item()  # note 10 ✓\n"
    "loss.backward()\nopt.zero_grad()  # note 12 ✓\nopt.step()\n"
)


# Also from the long run: removing a no_grad reveals findings far from it (GG403 on a now
# non-leaf `loss.grad`; a module bound inside the removed block, now known file-wide).
REVEALED_FAR_AWAY = (
    "import torch\nfrom torch import nn\nmodel = nn.Linear(3, 1)\n@torch.no_grad()\n"
    "def compute_loss(x):\n    return model(x).pow(2).mean()\nx = x\n"
    "loss = compute_loss(torch.randn(4, 3))\nloss.backward()\nloss.grad.zero_()\n",
    "import torch\nfrom torch import nn\nwith torch.no_grad():\n    loss = model(x).sum()\n"
    "loss.backward()\nwith torch.no_grad():\n    model = nn.Linear(3, 1)\n"
    "    loss = criterion(model(x), y)\n    loss.backward()\n",
    "import torch\nfrom torch import nn\nmodel = nn.Linear(3, 1)\n"
    "loss = model(torch.randn(4, 3)).sum()\nloss.detach_()\nloss.backward()\nloss.grad.zero_()\n",
)


# From the long run: GG201 detached a walrus-carried state as `for t in loss := rnn(x)`.
WALRUS_STATE = (
    "import torch\nfrom torch import nn\nrnn = nn.GRU(4, 8)\nfor step in range(3):\n"
    "    x = (loss := rnn(x))\n    loss.backward()\n"
)

# From the long run: GG201's fix detached the state where the LSTM reads it, but the loop
# also called `h.backward()` on the state itself, so fix-all added .detach() forever.
BACKWARD_ON_STATE = (
    "import torch\nfrom torch import nn\nlstm = nn.LSTM(4, 8)\n"
    "h, c = torch.zeros(1, 2, 8), torch.zeros(1, 2, 8)\nfor _ in range(3):\n"
    "    h.backward()\n    out, (h, c) = lstm(torch.randn(5, 2, 4), (h, c))\n"
    "    out.mean().backward(retain_graph=True)\n"
)

# From CI: GG201 detached last iteration's `loss` where `loss.sum().backward()` reads it;
# that backward then started from a detached value, another rule's fix took the detach
# away again, and fix-all wrapped the read in `is not None` guards forever.
STATE_BACKPROPAGATED = (
    "import torch\nfrom torch import nn\nrnn = nn.RNNCell(4, 8)\nhead = nn.Linear(8, 1)\n"
    "h = torch.zeros(1, 8)\nfor step in range(5):\n    loss.sum().backward()\n"
    "    h_next = rnn(torch.randn(1, 4), h)\n    loss = head(h_next).pow(2).mean()\n"
    "    loss.backward()\n    h = h_next\n"
)

# From CI: GG109's fix removed `errors.requires_grad_(True)`, text that may unfreeze any
# parameter, so a freeze elsewhere became certain and GG104 was reported there.
UNFREEZING_REMOVED = (
    "import torch\nfrom torch import nn\nmodel = nn.Linear(4, 3)\n"
    "x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))\n"
    "errors = (model(x).argmax(dim=1) != y).float().mean()\n"
    "errors.requires_grad_(True)\nerrors.backward()\n"
    "frozen = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))\n"
    "for p in frozen.parameters():\n    p.requires_grad = False\n"
    "loss = nn.functional.cross_entropy(frozen(torch.randn(5, 4)), torch.tensor([0, 1, 0, 1, 1]))\n"
    "loss.backward()\n"
)


@settings(FUZZ, max_examples=250)
@example(program=UNFREEZING_REMOVED)
@example(program=STATE_BACKPROPAGATED)
@example(program=BACKWARD_ON_STATE)
@example(program=WALRUS_STATE)
@example(program=MOVED_WITH_COMMENT)
@example(program=REVEALED_FAR_AWAY[0])
@example(program=REVEALED_FAR_AWAY[1])
@example(program=REVEALED_FAR_AWAY[2])
@given(torch_programs())
def test_torch_flavoured_programs_keep_every_promise(program: str) -> None:
    assert parses(program), "the generator must produce valid Python"
    _record(check_everything(program))


# hypothesmith compiles its programs (filename "<string>") and CPython warns about some; the
# engine's own parse uses another filename, so its warnings would still show.
@pytest.mark.filterwarnings("ignore::SyntaxWarning:<string>")
@settings(FUZZ, max_examples=120)
@given(hypothesmith.from_grammar(), PREFIXES)
def test_any_program_from_the_grammar_is_analysed_safely(program: str, prefix: str) -> None:
    _record(check_everything(prefix + program))
    _record(check_everything(program + "\n# torch\n"))


@pytest.mark.filterwarnings("ignore::SyntaxWarning:<string>")
# hypothesmith.from_node() throws away most libcst trees it builds (they do not compile), so
# Hypothesis's "filtering out a lot of inputs" health check fails on some runs by chance.
@settings(
    FUZZ,
    max_examples=40,
    suppress_health_check=[*FUZZ.suppress_health_check, HealthCheck.filter_too_much],
)
@given(hypothesmith.from_node(), PREFIXES)
def test_any_program_from_libcst_nodes_is_analysed_safely(program: str, prefix: str) -> None:
    _record(check_everything(prefix + program))


def test_motif_lines_are_whole_statements() -> None:
    """Statements are spliced between motif lines, so no motif line may be half a statement."""
    assert _logical_lines("x = f(\n    1,\n)\ny = 2") == ["x = f( 1, )", "y = 2"]
    for motif in ALL_MOTIFS:
        for _level, text in motif:
            code = text.replace("{{", "{").replace("}}", "}")
            if code.endswith(":"):
                code += " pass"
            if code.startswith(("elif", "else", "except", "finally", "case", "@")):
                continue
            assert parses(code) or "{" in text, f"half a statement in a motif: {text!r}"
