"""Jupyter notebooks in the language server: the shared logic lives in `gradguard.core.notebook`.

Kept so `gradguard.lsp.notebook` goes on naming what it always named; `gradguard check`
reads `.ipynb` files with the same concatenation (see `gradguard.ipynb`).
"""

from __future__ import annotations

from gradguard.core.notebook import Cell, CellSpan, ConcatenatedNotebook, concatenate

__all__ = ["Cell", "CellSpan", "ConcatenatedNotebook", "concatenate"]
