"""Jupyter notebooks over LSP 3.17 notebook sync, as VS Code's Jupyter extension sends them."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from notebook_cells import LOOP, SETUP
from pytest_lsp import LanguageClient

from .conftest import start_session
from .edits import apply, edits_for
from .notebook_documents import open_notebook

NOTES = "# Training\nThe hidden state is carried across steps."


async def test_hidden_state_across_cells(raw_client: LanguageClient, tmp_path: Path) -> None:
    lsp, result = await start_session(raw_client, "visual-studio-code", tmp_path, notebooks=True)
    sync = result.capabilities.notebook_document_sync
    assert isinstance(sync, types.NotebookDocumentSyncOptions)
    [selector] = sync.notebook_selector
    assert selector.notebook == "jupyter-notebook"
    assert [c.language for c in selector.cells or []] == ["python"]

    notebook = tmp_path / "train.ipynb"
    uris = open_notebook(
        raw_client, notebook, [(SETUP, "python"), (NOTES, "markdown"), (LOOP, "python")]
    )
    loop_line = LOOP.splitlines().index("    h = h_next")
    items = await lsp.pushed(uris[2], lambda ds: any(d.code == "GG201" for d in ds))
    [diagnostic] = [d for d in items if d.code == "GG201"]
    assert diagnostic.range.start.line == loop_line
    assert all(r.location.uri in uris for r in diagnostic.related_information or []), (
        "related locations point at cells"
    )

    actions = await raw_client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uris[2]),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    [fix] = [a for a in actions or [] if isinstance(a, types.CodeAction) and "Detach" in a.title]
    if fix.edit is None:
        fix = await raw_client.code_action_resolve_async(fix)
    assert edits_for(fix.edit, uris[0]) == []
    fixed = apply(LOOP, edits_for(fix.edit, uris[2]))
    assert fixed.splitlines()[loop_line] == "    h = h_next.detach()"

    # Typing the fix into the cell clears the diagnostic. Like VS Code, the client bumps only
    # the cell document's version, not the notebook's.
    raw_client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(
                uri=notebook.as_uri(), version=1
            ),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(uri=uris[2], version=2),
                            changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
                        )
                    ]
                )
            ),
        )
    )
    assert await lsp.pushed(uris[2], lambda ds: not ds) == []

    raw_client.notebook_document_did_close(
        types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=notebook.as_uri()),
            cell_text_documents=[types.TextDocumentIdentifier(uri=u) for u in uris],
        )
    )
    assert await lsp.pushed(uris[0]) == []


async def test_deleting_a_cell_never_serves_the_results_of_the_old_cells(
    raw_client: LanguageClient, tmp_path: Path
) -> None:
    """The notebook's version must change with every change the server sees.

    A sum of cell versions stays put when a cell is deleted in the change that bumps the
    notebook's version (-1 + 1), and the analysis of the old cells was served again.
    """
    lsp, _ = await start_session(raw_client, "visual-studio-code", tmp_path, notebooks=True)
    notebook = tmp_path / "deleted.ipynb"
    setup, loop = open_notebook(raw_client, notebook, [(SETUP, "python"), (LOOP, "python")])
    await lsp.pushed(loop, lambda ds: any(d.code == "GG201" for d in ds))
    # Delete the setup cell: without it nothing says `h` is an RNN's hidden state.
    raw_client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(
                uri=notebook.as_uri(), version=2
            ),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    structure=types.NotebookDocumentCellChangeStructure(
                        array=types.NotebookCellArrayChange(start=0, delete_count=1),
                        did_close=[types.TextDocumentIdentifier(uri=setup)],
                    )
                )
            ),
        )
    )
    after = await lsp.pushed(loop)
    assert [d.code for d in after] == [], "the loop cell alone has no finding"
