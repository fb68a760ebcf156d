"""`threading.Thread(target=f, args=(a, b), kwargs={"c": c})`: a call of `f` with those
arguments, made in a new thread.

Grad mode and inference mode are thread-local in PyTorch: a new thread starts with gradient
recording on and outside inference mode, whatever the mode of the code starting it (a
`Thread` started under `torch.no_grad()` or `torch.inference_mode()` runs its target with
recording on). So the target is entered with grad on (`GradContext.entered_with_grad_on`),
and its parameters learn what the thread is given (`call_sites`), like any other call.

Everything here is syntactic: a callee whose last name is `Thread` given `target=`. The
interpreter notes the call only when the callee resolves to `threading.Thread`; the survey
of call sites counts every such call, so a `Thread` of another kind leaves the target's
calls unaccounted for (it learns nothing), never misread.
"""

from __future__ import annotations

import ast

from gradguard.analysis.names import callee_name, keyword_value

THREAD = "threading.Thread"


def thread_target(call: ast.Call) -> ast.expr | None:
    """The `target=` of a `Thread(...)` call (`f`, `self.worker`); None for any other call."""
    if callee_name(call.func) != "Thread":
        return None
    return keyword_value(call, "target")


def target_call(call: ast.Call) -> ast.Call | None:
    """`Thread(target=f, args=(a, b), kwargs={"c": c})` as the call of its target the thread
    makes, `f(a, b, c=c)`, built from the same expression nodes; `args` and `kwargs` that are
    no literal (or a dict with keys that are not literal strings) are unpacked (`f(*args,
    **kwargs)`), which binds to nothing known (see `call_sites.passed_arguments`). None for a
    call that is not of a thread's target."""
    target = thread_target(call)
    if target is None:
        return None
    positional: list[ast.expr] = []
    args = keyword_value(call, "args")
    if isinstance(args, ast.Tuple | ast.List):
        positional = list(args.elts)
    elif args is not None:
        positional = [ast.Starred(value=args, ctx=ast.Load())]
    keywords: list[ast.keyword] = []
    kwargs = keyword_value(call, "kwargs")
    if isinstance(kwargs, ast.Dict) and all(_string(k) for k in kwargs.keys):
        keywords = [
            ast.keyword(arg=k.value, value=v)
            for k, v in zip(kwargs.keys, kwargs.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        ]
    elif kwargs is not None:
        keywords = [ast.keyword(arg=None, value=kwargs)]
    made = ast.Call(func=target, args=positional, keywords=keywords)
    return ast.copy_location(made, call)


def as_call_of(name: str, call: ast.Call) -> ast.Call:
    """`call` as a call of the function `name`: the call of the thread's target when `call`
    is a `Thread` whose target is named `name` (`target_call`), else `call` itself."""
    target = thread_target(call)
    if target is not None and callee_name(target) == name:
        made = target_call(call)
        if made is not None:
            return made
    return call


def _string(key: ast.expr | None) -> bool:
    return isinstance(key, ast.Constant) and isinstance(key.value, str)
