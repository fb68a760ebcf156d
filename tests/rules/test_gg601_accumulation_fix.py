"""GG601's fix for gradient accumulation that is never cleared clears after each step (the
accumulation the loop means), not before each backward (which would keep only the last
batch's gradients); the fixed program runs under torch and is silent."""

from __future__ import annotations

import textwrap

import torch

from gradguard.core.engine import check_source, fix_source
from gradguard.core.settings import Settings

PROGRAM = textwrap.dedent(
    """
    import torch
    from torch import nn
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(8)]
    for i, (x, y) in enumerate(data):
        loss = nn.functional.mse_loss(model(x), y) / 4
        loss.backward()
        if (i + 1) % 4 == 0:
            optimizer.step()
    """
)


def test_accumulation_is_cleared_after_each_step() -> None:
    settings = Settings(select=("GG601",))
    found = check_source(PROGRAM, settings=settings).findings
    assert [f.code for f in found] == ["GG601"]
    assert [fix.title for fix in found[0].fixes] == ["Clear gradients after each step"]
    fixed = fix_source(PROGRAM, settings=settings)
    assert "        optimizer.step()\n        optimizer.zero_grad()\n" in fixed.text
    assert fixed.remaining.findings == ()
    exec(compile(fixed.text, "<fixed>", "exec"), {"torch": torch})
