"""Precision of GG501 (non-scalar backward) and GG407 (.grad read before backward): what
must and must not be reported, beyond the rules' own examples."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gradguard.core.engine import check_source

ROOT = Path(__file__).resolve().parents[2]


def _lines(code: str, rule: str) -> list[int]:
    """Lines (1 = the first line after the opening quotes) where `rule` reports in `code`."""
    source = "import torch\nfrom torch import nn\n" + textwrap.dedent(code)
    return [f.range.start.line - 2 for f in check_source(source).findings if f.code == rule]


def test_gg407_fires_on_the_first_iteration_of_a_training_loop() -> None:
    code = """
    w = torch.randn(3, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    for step in range(3):
        w.grad.zero_()
        (w * 2).sum().backward()
        opt.step()
    """
    assert _lines(code, "GG407") == [4]


@pytest.mark.parametrize(
    "code",
    [
        # A later iteration may be the first to reach the read, after a backward.
        """
        w = torch.randn(3, requires_grad=True)
        for step in range(3):
            if step % 2:
                w.grad.zero_()
            (w * 2).sum().backward()
        """,
        # Unknown code between the creation and the read may run backward.
        """
        w = torch.randn(3, requires_grad=True)
        trainer.step(w)
        w.grad.zero_()
        """,
        """
        w = torch.randn(3, requires_grad=True)
        accelerator.backward((w * 2).sum())
        print(w.grad.norm())
        """,
        # optimizer.step(closure) runs the closure, which runs backward.
        """
        w = torch.randn(3, requires_grad=True)
        opt = torch.optim.LBFGS([w])
        opt.step(lambda: (w * 2).sum().backward())
        print(w.grad.norm())
        """,
        # A generator may be suspended at the yield while the caller runs backward.
        """
        def steps():
            w = torch.randn(3, requires_grad=True)
            yield w
            w.grad.zero_()
        """,
        # Not created here: a function's parameter may arrive with a gradient.
        """
        def sgd(w, lr):
            w.data -= lr * w.grad
        """,
        # Not a use that fails on None.
        """
        w = torch.randn(3, requires_grad=True)
        g = w.grad
        ok = w.grad is None or w.grad.sum() > 0
        """,
    ],
)
def test_gg407_stays_silent_when_uncertain(code: str) -> None:
    assert _lines(code, "GG407") == []


def test_gg403_and_gg407_never_report_the_same_read() -> None:
    """GG403 is about non-leaves (None forever), GG407 about leaves before backward."""
    code = """
    w = torch.randn(3, requires_grad=True)
    h = w * 2
    print(h.grad.norm(), w.grad.norm())
    h.sum().backward()
    """
    source = "import torch\nfrom torch import nn\n" + textwrap.dedent(code)
    findings = check_source(source).findings
    by_range = {(f.range, f.code) for f in findings if f.code in ("GG403", "GG407")}
    assert {code for _, code in by_range} == {"GG403", "GG407"}
    assert len({rng for rng, _ in by_range}) == len(by_range)
    for path in sorted((ROOT / "tests" / "corpus").rglob("*.py")):
        found = check_source(path.read_text(encoding="utf-8")).findings
        ranges = [f.range for f in found if f.code in ("GG403", "GG407")]
        assert len(ranges) == len(set(ranges)), path


def test_inplace_update_under_no_grad_keeps_the_leaf_trainable() -> None:
    """`w -= lr * w.grad` under no_grad changes w's data, not its requires_grad: the next
    loss computed from w has history (GG101 used to report it)."""
    code = """
    w = torch.randn(3, requires_grad=True)
    (w * 2).sum().backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    loss = (w * 2).sum()
    loss.backward()
    """
    source = "import torch\nfrom torch import nn\n" + textwrap.dedent(code)
    assert check_source(source).findings == ()


def test_gg501_fix_sums_and_reports_the_shape() -> None:
    code = "y = nn.Linear(3, 4)(torch.randn(2, 3))\ny.backward()\n"
    source = "import torch\nfrom torch import nn\n" + code
    (finding,) = [f for f in check_source(source).findings if f.code == "GG501"]
    assert "shape (2, 4)" in finding.message
    assert "grad can be implicitly created only for scalar outputs" in finding.message
    (fix,) = finding.fixes
    assert fix.safety.value == "unsafe"
    assert [edit.new_text for edit in fix.edits] == ["y.sum()"]
