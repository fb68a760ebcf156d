"""Names other files of the project call while gradient recording may be off.

A function of one file is often run only by another: `model.py` defines `Model.generate`,
ending in `.cpu().numpy()` of the detector's outputs, and `main.py` calls `model.generate(x)`
in a `test()` decorated `@torch.no_grad()`. Seen alone, `model.py` looks as if recording
were on at `generate`'s entry (nothing in it calls the method). This module finds, per
file, the names called from a region where recording may be off:

* the body of a function decorated with a grad-mode switch (`@torch.no_grad()`,
  `@t.inference_mode()`, `@torch.set_grad_enabled(flag)`), or of a `with` block entering
  one, matched by their last name (`no_grad`, `inference_mode`, `set_grad_enabled`) so any
  alias counts; `set_grad_enabled(True)` and `inference_mode(False)` (literal) do not
  switch recording off;
* the body of a function of the same file called by name from such a region (`test()`
  calls `run_batch()`, which calls `model.generate(x)`), transitively;

and in a region every call's last name (`x.generate(...)`, `generate(...)`), with the name an
import alias stands for (`from model import generate as gen`, then `gen(...)`).

Which files count: those sharing a connected part of the project's import graph with the
file checked, edges taken both ways (`main.py` imports `model.py` and `utils.py`, so
`utils.py`'s `with torch.no_grad(): model.predict(x)` counts for `model.py` even though
`utils.py` never imports it: the model reaches it as an argument). Code in a file that no
chain of imports joins to the checked one belongs to another program (a separate script of
a folder of examples) and cannot run its functions; such a file does not count. Dynamic
imports (`importlib`) are not seen.

A call that certainly runs the function with recording on keeps it certain: a plain call
of the name another file imports from the function's own module (`from .transformer_engine
import convert_model`, then `convert_model(model, to_transformer_engine=False)`) outside
every grad-off region, in a function whose own name no file of the part calls with recording
off. Whatever the other callers do, that caller runs it with recording on, so a finding that
needs recording on is a bug for that caller (the look-alike of accelerate's `convert_model`,
converted under `torch.no_grad()` one way by `Accelerator.prepare` and with recording on the
other way by `extract_model_from_parallel`). Calls of a method (`x.generate(...)`) never
count as such: the object may be another class's.

The fact only ever makes the analysis less certain (a function whose name is among them is
no longer certainly entered with recording on), so matching by name is sound for it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

# A quick test of a file's text before parsing it: no region without one of these words.
SWITCH_TEXT = re.compile(r"\b(?:no_grad|inference_mode|set_grad_enabled)\b")

_OFF_SWITCHES = frozenset({"no_grad", "inference_mode", "set_grad_enabled"})

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def _last_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Name):
        return expr.id
    return None


def may_switch_off(expr: ast.expr) -> bool:
    """Whether a decorator or context manager may switch recording off."""
    call = expr if isinstance(expr, ast.Call) else None
    name = _last_name(call.func if call is not None else expr)
    if name not in _OFF_SWITCHES:
        return False
    if call is None or name == "no_grad":
        return True
    flag = call.args[0] if call.args else None
    for keyword in call.keywords:
        if keyword.arg == "mode":
            flag = keyword.value
    if flag is None:
        return name == "inference_mode"  # `inference_mode()` is on by default
    if isinstance(flag, ast.Constant) and isinstance(flag.value, bool):
        # set_grad_enabled(True) keeps recording; inference_mode(False) changes nothing.
        return flag.value is False if name == "set_grad_enabled" else flag.value is True
    return True  # a flag computed at run time: recording may be off


def names_called_off(tree: ast.Module) -> frozenset[str]:
    """The names the module calls from a region where recording may be off (see above)."""
    called, _ = _off_regions(tree)
    aliases = _aliases(tree)
    return frozenset(called | {aliases[name] for name in called if name in aliases})


@dataclass(frozen=True)
class ImportedCall:
    """A call, outside every grad-off region, of a name the file imports from a module
    (`from .utils import convert_model`, then `convert_model(model)`): it certainly runs
    that module's function, with recording on unless `caller` (the enclosing function's
    name, None at module level) is itself entered with recording off."""

    module: str
    level: int
    name: str
    caller: str | None


def imported_calls_on(tree: ast.Module) -> frozenset[ImportedCall]:
    """The calls of imported names outside every grad-off region of the module."""
    imported: dict[str, tuple[str, int, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    bound = alias.asname or alias.name
                    imported[bound] = (node.module or "", node.level, alias.name)
    if not imported:
        return frozenset()
    _, regions = _off_regions(tree)
    inside = {id(n) for region in regions for stmt in region.body for n in ast.walk(stmt)}
    caller: dict[int, str] = {}
    for node in ast.walk(tree):  # outer functions first: a nested one overwrites them
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in (n for stmt in node.body for n in ast.walk(stmt)):
                caller[id(inner)] = node.name
    found: set[ImportedCall] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in imported
            and id(node) not in inside
        ):
            module, level, name = imported[node.func.id]
            found.add(ImportedCall(module, level, name, caller.get(id(node))))
    return frozenset(found)


_Region = ast.FunctionDef | ast.AsyncFunctionDef | ast.With | ast.AsyncWith


def _off_regions(tree: ast.Module) -> tuple[set[str], list[_Region]]:
    """The names called in grad-off regions, and the regions (functions of the file called
    from a region are regions too)."""
    functions: dict[str, list[FunctionNode]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions.setdefault(node.name, []).append(node)
    pending: list[_Region] = list(_regions(tree))
    seen: dict[int, _Region] = {}
    called: set[str] = set()
    while pending:
        region = pending.pop()
        if id(region) in seen:
            continue
        seen[id(region)] = region
        for node in (n for stmt in region.body for n in ast.walk(stmt)):
            if not isinstance(node, ast.Call):
                continue
            name = _last_name(node.func)
            if name is None or name in called:
                continue
            called.add(name)
            pending.extend(functions.get(name, []))
    return called, list(seen.values())


def _regions(tree: ast.Module) -> Iterator[_Region]:
    """Functions decorated with a switch, and `with` blocks entering one."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            switches = node.decorator_list
        elif isinstance(node, ast.With | ast.AsyncWith):
            switches = [item.context_expr for item in node.items]
        else:
            continue
        if any(may_switch_off(switch) for switch in switches):
            yield node


def _aliases(tree: ast.Module) -> dict[str, str]:
    """`from m import name as alias`: alias -> name."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.asname is not None and alias.name != "*":
                    found[alias.asname] = alias.name
    return found
