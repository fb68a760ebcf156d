"""Jupyter notebooks in the language server: the shared logic lives in `gradguard.core.notebook`.

Kept so `gradguard.lsp.notebook` goes on naming what it always named; `gradguard check`
reads `.ipynb` files with the same concatenation (see `gradguard.ipynb`).

Messages cite lines of the concatenated module ("the loop at line 37"); shown in a cell,
they must cite lines of cells. `cell_citer` rewrites them with the same function the CLI's
notebook report uses (`ConcatenatedNotebook.cite_cells`), naming cells by their position in
the notebook (markdown cells count, as in `gradguard check`'s `notebook.ipynb:cell 3:...`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from gradguard.core.findings import Finding
from gradguard.core.notebook import (
    Cell,
    CellSpan,
    ConcatenatedNotebook,
    cite_finding,
    concatenate,
)

__all__ = ["Cell", "CellSpan", "ConcatenatedNotebook", "cell_citer", "cite_finding", "concatenate"]


class CellCiter:
    """Rewrites findings of one concatenated notebook to cite cell-relative lines."""

    def __init__(self, joined: ConcatenatedNotebook, numbers: Mapping[str, int]) -> None:
        # The spans renamed from cell URIs to cell numbers: what a message names.
        spans = tuple(
            replace(span, uri=str(numbers.get(span.uri, index)))
            for index, span in enumerate(joined.spans, start=1)
        )
        self.named = replace(joined, spans=spans)

    def __call__(self, finding: Finding) -> Finding:
        return cite_finding(self.named, finding)


def cell_citer(joined: ConcatenatedNotebook | None, numbers: Mapping[str, int]) -> CellCiter | None:
    """The citation rewriter for a notebook (`numbers`: cell URI → position in the notebook,
    from 1); `None` for a plain document, whose messages already cite its own lines."""
    return None if joined is None else CellCiter(joined, numbers)
