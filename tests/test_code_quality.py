"""The code-quality bar from DESIGN.md, enforced: ruff lint and format, `mypy --strict`, and
no torch import and no libcst import at module level anywhere in the package."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "server" / "gradguard"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_lint_is_clean() -> None:
    done = _run("ruff", "check", "server", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_is_clean() -> None:
    done = _run("ruff", "format", "--check", "server", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_is_clean() -> None:
    done = _run("mypy")
    assert done.returncode == 0, done.stdout + done.stderr


def _module_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in tree.body:  # module level only: lazy imports inside functions are the point
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_the_package_never_imports_torch_and_imports_libcst_lazily() -> None:
    torch_users = []
    eager_libcst = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            if any(name.split(".")[0] == "torch" for name in names):
                torch_users.append(str(path.relative_to(PACKAGE)))
        if "libcst" in _module_level_imports(path):
            eager_libcst.append(str(path.relative_to(PACKAGE)))
    assert torch_users == []
    assert eager_libcst == []
