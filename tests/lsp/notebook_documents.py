"""Opening a notebook in the server as VS Code does (`notebookDocument/didOpen`)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient


def cell_uri(notebook: Path, index: int) -> str:
    """The URI VS Code gives cell `index` of `notebook`."""
    return f"vscode-notebook-cell:{notebook}#W{index}sZmlsZQ%3D%3D"


def open_notebook(
    client: LanguageClient, notebook: Path, cells: list[tuple[str, str]]
) -> list[str]:
    """didOpen a notebook of (text, language) cells, markdown ones as markup cells; returns
    the cells' URIs."""
    uris = [cell_uri(notebook, i) for i in range(len(cells))]
    kinds = [
        types.NotebookCellKind.Markup if lang == "markdown" else types.NotebookCellKind.Code
        for _, lang in cells
    ]
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=notebook.as_uri(),
                notebook_type="jupyter-notebook",
                version=1,
                cells=[
                    types.NotebookCell(kind=kind, document=uri)
                    for uri, kind in zip(uris, kinds, strict=True)
                ],
            ),
            cell_text_documents=[
                types.TextDocumentItem(uri=uri, language_id=lang, version=1, text=text)
                for uri, (text, lang) in zip(uris, cells, strict=True)
            ],
        )
    )
    return uris
