"""What the interpreter may ask about names imported from other files of the project.

The interpreter knows one file. When a project index is active (`gradguard.project`), it
answers for the file being analysed: which value an import binds (an `nn.Module` subclass
of `model.py`, a helper function of `utils.py`, a module-level object), which analysis owns
a class or function defined in another file, and what such a function looks like from its
callers. Without an index every import is unknown, as it always was.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from gradguard.analysis.interpreter.module import ModuleInterpreter
    from gradguard.analysis.interpreter.summary import FunctionSummary
    from gradguard.analysis.model import FunctionNode
    from gradguard.analysis.values import Value


class ProjectImports(Protocol):
    """The project as seen from one file (implemented by `gradguard.project.FileImports`)."""

    def imported(self, stmt: ast.Import | ast.ImportFrom, alias: ast.alias) -> Value | None:
        """The value `alias` of the import binds, or None when it is not certainly known."""

    def star(self, stmt: ast.ImportFrom) -> dict[str, Value]:
        """The known values `from module import *` binds (empty when unknown)."""

    def owner(self, node: ast.AST) -> ModuleInterpreter | None:
        """The analysis of the other file that defines `node`, or None for this file's own."""

    def summary(self, owner: ModuleInterpreter, node: FunctionNode) -> FunctionSummary:
        """How a function of another file looks from its callers (unknown when not known)."""

    def called_without_grad(self) -> frozenset[str]:
        """The names other files of the project may call while recording is off (a function
        of the file of such a name may be entered with recording off); empty when unknown."""
