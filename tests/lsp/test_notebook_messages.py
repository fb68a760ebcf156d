"""Messages shown in notebook cells cite lines of cells, not of the cells joined together
(the ranges were always per cell; the words "line 37" were not)."""

from __future__ import annotations

from pathlib import Path

from notebook_cells import LOOP, SETUP
from pytest_lsp import LanguageClient

from .conftest import start_session
from .notebook_documents import open_notebook

NOTES = "# Training\nThe hidden state is carried across steps."
DATA = "import torch\nfrom torch import nn\nmodel = nn.Linear(4, 1)\nx = torch.randn(2, 4)\n"
FROZEN = "with torch.no_grad():\n    loss = model(x).sum()\n"
STEP = "print('step')\nloss.backward()\n"


async def test_notebook_messages_cite_cell_lines(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    lsp, _ = await start_session(raw_client, "visual-studio-code", tmp_path, notebooks=True)

    # A line in the same cell: "line M" counted from the cell's first line.
    same = open_notebook(
        raw_client,
        tmp_path / "train.ipynb",
        [(SETUP, "python"), (NOTES, "markdown"), (LOOP, "python")],
    )
    items = await lsp.pushed(same[2], lambda ds: any(d.code == "GG201" for d in ds))
    [hidden] = [d for d in items if d.code == "GG201"]
    loop = LOOP.splitlines().index("for step in range(5):") + 1
    backward = LOOP.splitlines().index("    loss.backward()") + 1
    assert f"the loop at line {loop} without" in hidden.message, hidden.message
    assert f"`loss.backward()` (line {backward})" in hidden.message, hidden.message

    # A line in another cell: "line M of cell K", K counting every cell (markdown too),
    # as `gradguard check notebook.ipynb` numbers them.
    other = open_notebook(
        raw_client,
        tmp_path / "frozen.ipynb",
        [(DATA, "python"), (FROZEN, "python"), (NOTES, "markdown"), (STEP, "python")],
    )
    items = await lsp.pushed(other[1], lambda ds: any(d.code == "GG101" for d in ds))
    [frozen] = [d for d in items if d.code == "GG101"]
    assert "`loss.backward()` (line 2 of cell 4)" in frozen.message, frozen.message
