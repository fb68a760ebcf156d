"""GG203's message and fix name the number to accumulate as Python reads it: the product
`val * n` becomes `(val * n).item()`, never `val * n.item()` (an int has no `.item()`); the
fixed program runs under torch and is silent."""

from __future__ import annotations

import textwrap

from gradguard.core.engine import check_source, fix_source
from gradguard.core.settings import Settings

PROGRAM = textwrap.dedent(
    """
    import torch
    from torch import nn

    class AverageMeter:
        def __init__(self):
            self.sum = 0
            self.count = 0

        def update(self, val, n=1):
            self.sum += val * n
            self.count += n

    def train(model, loader, optimizer):
        meter = AverageMeter()
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.update(loss, x.size(0))
        return meter.sum / meter.count

    model = nn.Linear(3, 1)
    data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]
    average = train(model, data, torch.optim.SGD(model.parameters(), lr=0.1))
    """
)


def test_the_number_accumulated_is_the_whole_product() -> None:
    settings = Settings(select=("GG203",))
    found = check_source(PROGRAM, settings=settings).findings
    assert [f.code for f in found] == ["GG203"]
    assert "Add `(val * n).item()` instead" in found[0].message
    assert [fix.title for fix in found[0].fixes] == ["Accumulate (val * n).item()"]
    fixed = fix_source(PROGRAM, settings=settings, unsafe=True)
    assert "self.sum += (val * n).item()" in fixed.text
    assert fixed.remaining.findings == ()
    namespace: dict[str, object] = {}
    exec(compile(fixed.text, "<fixed>", "exec"), namespace)
    assert isinstance(namespace["average"], float)
