"""How functions are entered: call sites, grad-mode regions, callers and callees."""

from __future__ import annotations

import ast
import textwrap

from gradguard.analysis.grad_context import GradContext


def _context(code: str) -> tuple[GradContext, dict[str, ast.FunctionDef]]:
    tree = ast.parse(textwrap.dedent(code))
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    return GradContext(tree), functions


def test_module_body_and_plainly_called_functions_start_with_grad_on() -> None:
    context, functions = _context(
        """
        def evaluate():
            pass
        def main():
            evaluate()
        main()
        """
    )
    assert context.entered_with_grad_on(None)
    assert context.entered_with_grad_on(functions["main"])
    assert context.entered_with_grad_on(functions["evaluate"])


def test_a_caller_under_no_grad_makes_the_mode_unknown() -> None:
    context, functions = _context(
        """
        import torch
        def evaluate():
            pass
        def main():
            with torch.no_grad():
                evaluate()
        def other():
            evaluate()
        main()
        other()
        """
    )
    assert not context.entered_with_grad_on(functions["evaluate"])
    assert context.entered_with_grad_on(functions["other"])


def test_uncalled_callbacks_and_decorated_callers_are_unknown() -> None:
    context, functions = _context(
        """
        import torch
        def callback():
            pass
        register(callback)
        def helper():
            pass
        @torch.inference_mode()
        def predict():
            helper()
        predict()
        @app.route("/")
        def handler():
            pass
        class Module(LightningModule):
            def validation_step(self):
                pass
        def outer():
            def nested_never_called():
                pass
        """
    )
    assert not context.entered_with_grad_on(functions["callback"])
    assert not context.entered_with_grad_on(functions["helper"])
    assert not context.entered_with_grad_on(functions["handler"])
    assert not context.entered_with_grad_on(functions["validation_step"])
    assert not context.entered_with_grad_on(functions["nested_never_called"])


def test_a_plain_function_nothing_in_the_file_calls_is_an_entry_point() -> None:
    # Other code calls it with recording on (the default), as it calls any function.
    context, functions = _context(
        """
        import torch
        def evaluate(model, loader):
            pass
        def helper_of_entry_point():
            pass
        def entry():
            helper_of_entry_point()
        """
    )
    assert context.uncalled_entry_point(functions["evaluate"])
    assert context.entered_with_grad_on(functions["evaluate"])
    assert not context.uncalled_entry_point(functions["helper_of_entry_point"])
    assert context.entered_with_grad_on(functions["helper_of_entry_point"])


def test_methods_of_plain_classes_are_entry_points_and_framework_hooks_are_not() -> None:
    context, functions = _context(
        """
        import torch
        from torch import nn
        class Learner:
            def validation(self, loader):
                pass
            def __call__(self, x):
                pass
        class Net(nn.Module):
            def evaluate(self, loader):
                pass
        class Child(Net):
            def score(self, loader):
                pass
        class Hooked(Callback):
            def on_validation_end(self, trainer):
                pass
        class Meta(metaclass=Registry):
            def run(self):
                pass
        """
    )
    for name in ("validation", "evaluate", "score"):
        assert context.uncalled_entry_point(functions[name]), name
    for name in ("__call__", "on_validation_end", "run"):
        assert not context.uncalled_entry_point(functions[name]), name


def test_set_grad_enabled_in_the_caller_makes_the_mode_unknown() -> None:
    context, functions = _context(
        """
        import torch
        def evaluate():
            pass
        torch.set_grad_enabled(False)
        evaluate()
        """
    )
    assert not context.entered_with_grad_on(functions["evaluate"])


def test_results_handed_to_siblings_through_assignments() -> None:
    context, functions = _context(
        """
        def evaluate():
            pass
        def train(x):
            pass
        def log(x):
            pass
        def main():
            loss, acc = evaluate()
            scaled = loss * 2
            train(scaled)
            log(acc)
            train(1)
        """
    )
    handed = context.handed_results(functions["main"], functions["evaluate"])
    assert handed == {functions["train"], functions["log"]}


def test_results_stored_in_shared_state_reach_anything() -> None:
    context, functions = _context(
        """
        class T:
            def evaluate(self):
                pass
            def fit(self):
                self.last = self.evaluate()
        """
    )
    assert context.handed_results(functions["fit"], functions["evaluate"]) is None


def test_methods_sharing_a_name_are_entered_as_their_calls_are() -> None:
    """`step` of two classes (and an optimizer's `step()` inside one of them): every call of
    the name may run either, so each is entered with grad on when all those calls are."""
    code = """
        import torch
        class A:
            def step(self):
                self.optimizer.step()
        class B:
            def step(self):
                pass
        def main():
            A().step()
            B().step()
        main()
        """
    tree = ast.parse(textwrap.dedent(code))
    steps = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "step"]
    context = GradContext(tree)
    assert all(context.entered_with_grad_on(step) for step in steps)
    under = textwrap.dedent(code).replace(
        "    B().step()", "    with torch.no_grad():\n        B().step()"
    )
    tree = ast.parse(under)
    steps = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "step"]
    context = GradContext(tree)
    assert not any(context.entered_with_grad_on(step) for step in steps)


def test_a_recursive_call_keeps_the_mode_the_function_was_entered_with() -> None:
    context, functions = _context(
        """
        import torch
        def visit(node):
            for child in node.children:
                visit(child)
        def switching(node):
            with torch.no_grad():
                switching(node.left)
        visit(root)
        switching(root)
        """
    )
    assert context.entered_with_grad_on(functions["visit"])
    assert not context.entered_with_grad_on(functions["switching"])


def test_a_name_defined_once_is_what_its_calls_run() -> None:
    context, functions = _context(
        """
        def helper():
            pass
        class A:
            def step(self):
                pass
        class B:
            def step(self):
                pass
        """
    )
    assert context.defined_once("helper") is functions["helper"]
    assert context.defined_once("step") is None  # two definitions: which one runs is unknown
    assert context.defined_once("missing") is None
    assert context.defined_once(None) is None


def test_a_thread_target_starts_with_grad_on() -> None:
    """Grad mode is thread-local: the target of a thread started under `torch.no_grad()`
    runs with recording on. A `Thread` the file defines itself may call its target in the
    caller's mode."""
    context, functions = _context(
        """
        import threading
        import torch
        def work(x):
            pass
        def main():
            with torch.no_grad():
                threading.Thread(target=work, args=(1,)).start()
        main()
        """
    )
    assert context.entered_with_grad_on(functions["work"])
    own, own_functions = _context(
        """
        import torch
        class Thread:
            def __init__(self, target):
                target()
        def work():
            pass
        with torch.no_grad():
            Thread(target=work)
        """
    )
    assert not own.entered_with_grad_on(own_functions["work"])
