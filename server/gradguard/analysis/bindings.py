"""The bindings of a name among one scope's own statements, read syntactically.

`name_bindings(name, body)` gives the plain assignments `name = value` of the scope and how
many times the scope binds the name in any way (assignments, loop and `with` targets,
`del`, imports, `def`/`class`; a `global`/`nonlocal` declaration counts as unknown many).
`sole_assignment` is the one assignment when it is the name's only binding: what the name
holds wherever the scope reads it after that statement.
"""

from __future__ import annotations

import ast

from gradguard.analysis.walk import own_nodes

# A declaration that the name lives elsewhere: any code may bind it.
_ELSEWHERE = 2


def name_bindings(name: str, body: list[ast.stmt]) -> tuple[list[ast.Assign], int]:
    """(the `name = value` statements among the scope's own statements, how many times the
    scope binds `name` in any way)."""
    assignments: list[ast.Assign] = []
    count = 0
    for node in own_nodes(body):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            count += 1
        elif isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            count += _ELSEWHERE
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            count += node.name == name
        elif isinstance(node, ast.alias):
            count += (node.asname or node.name.split(".")[0]) == name
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == name
        ):
            assignments.append(node)
    return assignments, count


def sole_assignment(name: str, body: list[ast.stmt]) -> ast.Assign | None:
    """`name = value` when it is the only binding of `name` among the scope's statements."""
    assignments, count = name_bindings(name, body)
    return assignments[0] if count == 1 and len(assignments) == 1 else None
