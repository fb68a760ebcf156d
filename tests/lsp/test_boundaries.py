"""Only `gradguard.lsp` may import pygls or lsprotocol (checked on the source's imports)."""

from __future__ import annotations

import ast
from pathlib import Path

import gradguard

PACKAGE = Path(gradguard.__file__).parent
PROTOCOL_PACKAGES = {"pygls", "lsprotocol"}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_only_the_lsp_package_imports_pygls_or_lsprotocol() -> None:
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "lsp" and imported_roots(path) & PROTOCOL_PACKAGES
    ]
    assert offenders == []


def test_the_lsp_package_does_use_them() -> None:
    # Guards the scan itself: it must see the imports where they do exist.
    assert imported_roots(PACKAGE / "lsp" / "handlers" / "__init__.py") & PROTOCOL_PACKAGES
