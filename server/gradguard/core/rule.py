"""The rule contract: one module under `gradguard.rules` per rule, discovered at import time."""

from __future__ import annotations

import abc
import ast
import importlib
import pkgutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING, ClassVar

from gradguard.core.findings import Finding, Fix, Position, Range, Related, Severity
from gradguard.core.text import FOREIGN_LINE_BASE, FOREIGN_POSITION, SourceText

if TYPE_CHECKING:
    from gradguard.analysis.facts import (
        GradContext,
        ModuleAnalysis,
        NameFlow,
        UnfilledRead,
        UnreachedOptimizer,
    )

# The range of a node of another project file: no place in this document.
FOREIGN_RANGE = Range(FOREIGN_POSITION, FOREIGN_POSITION)

DOCS_URL = "https://github.com/gradguard/gradguard/blob/main/docs/rules.md#{anchor}"


@dataclass(frozen=True)
class Invalid:
    """An INVALID example: code the rule must flag, and the text its first fix must produce.

    `error` is what the code raises when run under torch (a substring of "Type: message");
    None when it runs but misbehaves (e.g. trains nothing). The test suite runs every example
    under real torch: INVALID code must raise `error`, VALID and fixed code must run.
    """

    code: str
    fixed: str | None = None
    unsafe_fix: bool = False
    error: str | None = None


@dataclass(frozen=True)
class RuleContext:
    """Everything a rule may read: the text, the `ast`, and the shared dataflow facts."""

    source: SourceText
    tree: ast.Module
    analysis: ModuleAnalysis
    path: str | None = None

    # -- providers: facts computed once per module, on first use, shared by every rule --

    @cached_property
    def grad_context(self) -> GradContext:
        """Call sites, callers and grad-mode regions of the module's functions."""
        from gradguard.analysis.facts import ForwardCall, GradContext, ModuleModeCall

        events = self.analysis.events.of(ModuleModeCall, ForwardCall)
        return GradContext(self.tree, events, self.analysis.called_off_elsewhere)

    @cached_property
    def torch_alias(self) -> str | None:
        """The name `torch` is importable under here, for fixes that must spell it."""
        from gradguard.analysis.facts import torch_alias

        return torch_alias(self.tree)

    @cached_property
    def may_have_hooks(self) -> bool:
        """Whether some module of the file may have a hook registered on it."""
        from gradguard.analysis.facts import may_have_hooks

        return may_have_hooks(self.tree, self.source.text)

    @cached_property
    def may_keep_hooks(self) -> bool:
        """Whether some module of the file may have a hook that outlives the call that
        registered it (not only a summary's, removed once the summary has run)."""
        from gradguard.analysis.facts import may_keep_hooks

        return may_keep_hooks(self.tree, self.source.text)

    @cached_property
    def hook_receivers(self) -> tuple[ast.expr, ...] | None:
        """The access paths of the modules the file's lasting hooks are registered on;
        None when a hook may be on a module not named so (see `hooks.hook_receivers`)."""
        from gradguard.analysis.facts import hook_receivers

        return hook_receivers(self.tree, self.source.text)

    @cached_property
    def unfilled_grad_reads(self) -> list[UnfilledRead]:
        """Reads of `.grad` before any backward can have filled it."""
        from gradguard.analysis.facts import unfilled_grad_reads

        return list(unfilled_grad_reads(self.analysis))

    @cached_property
    def name_flow(self) -> NameFlow:
        """Which names' values may be computed from which (flow-insensitive)."""
        from gradguard.analysis.facts import NameFlow

        return NameFlow(self.tree)

    @cached_property
    def unreached_optimizers(self) -> list[UnreachedOptimizer]:
        """Optimizers whose steps follow only losses that never reach their parameters."""
        from gradguard.analysis.facts import unreached_optimizers

        if not self._may_step_a_fresh_module:
            return []  # the name flow costs a pass: only where the fact can hold
        return unreached_optimizers(self.analysis, self.name_flow)

    @property
    def _may_step_a_fresh_module(self) -> bool:
        """Whether an optimizer stepped here may hold the parameters of a module built here
        from plain arguments, or of a deep copy: the only modules `unreached_optimizers`
        can decide about."""
        from gradguard.analysis.facts import OptimizerCall

        steps = [u for u in self.analysis.events.of(OptimizerCall) if u.method == "step"]
        if not steps:
            return False
        if "deepcopy" in self.source.text:
            return True
        return any(
            u.value.optimizes is not None and u.value.optimizes.module.self_contained for u in steps
        )

    def node_range(self, node: ast.AST) -> Range:
        """The exact range of an `ast` node (statement or expression); `FOREIGN_RANGE` for a
        node of another project file (a finding there is dropped, a related entry left out).
        """
        if getattr(node, "lineno", 0) >= FOREIGN_LINE_BASE:
            return FOREIGN_RANGE
        start = self.source.from_ast(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
        end_col = getattr(node, "end_col_offset", None)
        end = self.source.from_ast(end_line, end_col if end_col is not None else 0)
        return Range(start, end)

    def header_range(self, node: ast.stmt) -> Range:
        """The first line of a compound statement (`for x in loader:`), for pointing at it."""
        if node.lineno >= FOREIGN_LINE_BASE:
            return FOREIGN_RANGE
        start = self.source.from_ast(node.lineno, node.col_offset)
        line = self.source.line(start.line)
        return Range(start, Position(start.line, len(line.rstrip())))


class Rule(abc.ABC):
    """Base class of every rule. Subclasses set the class attributes and implement `check`."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = Severity.ERROR
    summary: ClassVar[str]
    valid: ClassVar[Sequence[str]] = ()
    invalid: ClassVar[Sequence[Invalid]] = ()
    tags: ClassVar[tuple[str, ...]] = ()

    @property
    def docs(self) -> str:
        """The rule's documentation: its module docstring (What it does / Why is this bad? ...)."""
        module = importlib.import_module(type(self).__module__)
        return (module.__doc__ or self.summary).strip()

    @property
    def url(self) -> str:
        """Link to the rule's documentation."""
        return DOCS_URL.format(anchor=f"{self.code.lower()}-{self.name}")

    @abc.abstractmethod
    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        """Yield the rule's findings for one module."""

    def finding(
        self,
        message: str,
        rng: Range,
        related: Sequence[Related] = (),
        fixes: Sequence[Fix] = (),
    ) -> Finding:
        """Build a finding carrying this rule's identity."""
        return Finding(
            code=self.code,
            name=self.name,
            severity=self.severity,
            message=message,
            range=rng,
            related=tuple(related),
            fixes=tuple(fixes),
            url=self.url,
            tags=self.tags,
        )


@cache
def all_rules() -> tuple[Rule, ...]:
    """Every rule in `gradguard.rules`, sorted by code. Adding a rule means adding one module."""
    import gradguard.rules as package

    found: dict[str, Rule] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Rule)
                and value is not Rule
                and not getattr(value, "__abstractmethods__", None)
                and value.__module__ == module.__name__
            ):
                rule = value()
                if rule.code in found:
                    raise RuntimeError(f"duplicate rule code {rule.code}")
                found[rule.code] = rule
    return tuple(sorted(found.values(), key=lambda r: r.code))


def rule_by_code(code: str) -> Rule | None:
    """Look a rule up by code (`GG201`) or name (`hidden-state-not-detached`)."""
    wanted = code.strip()
    for rule in all_rules():
        if rule.code == wanted.upper() or rule.name == wanted.lower():
            return rule
    return None
