"""Rules read facts through one surface: `gradguard.core`, `gradguard.rewrite`,
`gradguard.analysis.facts` and the torch API tables, nothing else of the analysis."""

from __future__ import annotations

import ast
from pathlib import Path

import gradguard.rules

RULES = Path(gradguard.rules.__file__).parent
ALLOWED = (
    "gradguard.core",
    "gradguard.rewrite",
    "gradguard.analysis.facts",
    "gradguard.analysis.torch_api",
)


def forbidden_imports(source: str) -> list[str]:
    """The gradguard modules a rule module imports outside the allowed surface."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module]
            if node.module == "gradguard.analysis":
                modules = [f"gradguard.analysis.{alias.name}" for alias in node.names]
        for module in modules:
            if module.startswith("gradguard") and not module.startswith(ALLOWED):
                found.append(module)
    return found


def test_rules_import_only_the_facts_surface() -> None:
    offenders = {
        path.name: forbidden_imports(path.read_text(encoding="utf-8"))
        for path in sorted(RULES.glob("gg*.py"))
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_scan_sees_a_violation() -> None:
    """Guards the scan itself: each way of reaching past the surface is caught."""
    source = (
        "from gradguard.analysis.values import Grad\n"
        "from gradguard.analysis import interpreter\n"
        "import gradguard.analysis.model\n"
        "from gradguard.analysis import torch_api as api\n"
        "from gradguard.analysis.facts import Kind\n"
    )
    assert forbidden_imports(source) == [
        "gradguard.analysis.values",
        "gradguard.analysis.interpreter",
        "gradguard.analysis.model",
    ]
