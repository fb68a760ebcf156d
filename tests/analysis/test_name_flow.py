"""Which names' values may be computed from which (`analysis/name_flow.py`)."""

from __future__ import annotations

import ast
import textwrap

from gradguard.analysis.name_flow import Key, NameFlow


def _flow(source: str) -> tuple[ast.Module, NameFlow]:
    tree = ast.parse(textwrap.dedent(source))
    return tree, NameFlow(tree)


def _key(tree: ast.Module, flow: NameFlow, name: str, scope: str | None = None) -> Key:
    """The key of the first binding of `name` (inside function `scope` when given)."""
    root: ast.AST = tree
    if scope is not None:
        root = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == scope)
    for node in ast.walk(root):
        if isinstance(node, ast.Name) and node.id == name:
            key = flow.key_of(node)
            assert key is not None
            return key
    raise AssertionError(name)


def _reaches(flow: NameFlow, tree: ast.Module, target: str, source: str, scope: str) -> bool:
    return _key(tree, flow, source, scope) in flow.reaches([_key(tree, flow, target)])


def test_a_call_result_may_hold_what_the_function_returns() -> None:
    tree, flow = _flow(
        """
        def validate(loader):
            total = 0
            for x in loader:
                total += x
            return total / len(loader)

        score = validate([])
        """
    )
    assert _reaches(flow, tree, "score", "total", "validate")


def test_yielded_values_count_as_returned() -> None:
    tree, flow = _flow(
        """
        def batches(data):
            for chunk in data:
                piece = chunk * 2
                yield piece

        for item in batches([]):
            pass
        """
    )
    assert _reaches(flow, tree, "item", "piece", "batches")


def test_a_nested_function_returns_for_itself() -> None:
    tree, flow = _flow(
        """
        def outer():
            kept = 1
            def inner():
                hidden = 2
                return hidden
            return kept

        result = outer()
        """
    )
    assert _reaches(flow, tree, "result", "kept", "outer")
    assert not _reaches(flow, tree, "result", "hidden", "inner")


def test_a_detached_return_holds_nothing() -> None:
    tree, flow = _flow(
        """
        def evaluate(model, x):
            out = model(x)
            return out.item()

        value = evaluate(None, None)
        """
    )
    assert not _reaches(flow, tree, "value", "out", "evaluate")


def _param_key(tree: ast.Module, flow: NameFlow, function: str, param: str) -> Key:
    """The key of a parameter, through a read of it inside the function."""
    return _key(tree, flow, param, function)


_TRAIN_CALLED_ONCE = """
    def train(model, optimizer, critic):
        loss = model(1) + critic(2)
        optimizer.step()

    def main():
        net = make()
        judge = make()
        opt = make()
        train(net, opt, critic=judge)
"""


def test_a_parameter_gets_only_its_own_argument() -> None:
    tree, flow = _flow(_TRAIN_CALLED_ONCE)
    reached = flow.reaches([_param_key(tree, flow, "train", "critic")])
    assert _key(tree, flow, "judge", "main") in reached
    assert _key(tree, flow, "net", "main") not in reached


def test_a_name_handed_to_the_only_call_is_the_parameter() -> None:
    tree, flow = _flow(_TRAIN_CALLED_ONCE)
    call = next(
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "train"
    )
    net, opt = call.args
    assert isinstance(net, ast.Name) and isinstance(opt, ast.Name)
    assert flow.forwarded(net) == _param_key(tree, flow, "train", "model")
    assert flow.forwarded_from(_param_key(tree, flow, "train", "optimizer")) == flow.key_of(opt)


def test_no_forwarding_for_a_function_called_twice_or_rebinding() -> None:
    tree, flow = _flow(
        """
        def train(model, optimizer):
            optimizer = wrap(optimizer)
            optimizer.step()

        def main():
            opt = make()
            train(make(), opt)
            train(make(), opt)
        """
    )
    names = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "opt"]
    assert all(flow.forwarded(n) is None for n in names)
    tree, flow = _flow(
        """
        def train(model, optimizer):
            optimizer = wrap(optimizer)
            optimizer.step()

        def main():
            opt = make()
            train(make(), opt)
        """
    )
    names = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "opt"]
    assert all(flow.forwarded(n) is None for n in names)


def test_a_tuple_assignment_binds_each_name_to_its_own_value() -> None:
    tree, flow = _flow(
        """
        def main(x, mask):
            g, d = mask * 2, x + 1
            first, *rest = x, mask
        """
    )
    g, d = _key(tree, flow, "g", "main"), _key(tree, flow, "d", "main")
    mask, x = _key(tree, flow, "mask", "main"), _key(tree, flow, "x", "main")
    assert mask in flow.reaches([g]) and x not in flow.reaches([g])
    assert x in flow.reaches([d]) and mask not in flow.reaches([d])
    # A starred target takes any element: every name may hold every value.
    assert mask in flow.reaches([_key(tree, flow, "first", "main")])
    assert x in flow.reaches([_key(tree, flow, "rest", "main")])


def _attribute(tree: ast.Module, flow: NameFlow, attr: str) -> Key:
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == attr)
    key = flow.attribute_key(node)
    assert key is not None
    return key


TRAINER = """
class Trainer:
    def __init__(self, net):
        self.net = net
        self.outputs = []
        self.kept = {}

    def collect(self, x):
        out = self.net(x)
        self.outputs.append(out)
        self.kept["last"] = out

    def loss(self):
        return torch.stack(self.outputs).mean()

    def kept_loss(self):
        total = self.kept["last"].sum()
        return total
"""


def test_attributes_carry_what_is_stored_into_them_whatever_the_object() -> None:
    tree, flow = _flow(TRAINER + "t = Trainer(None)\nresult = t.loss()\n")
    out = _key(tree, flow, "out", "collect")
    # `self.outputs.append(out)` then a read of `self.outputs` in another method.
    assert out in flow.reaches([_attribute(tree, flow, "outputs")])
    # `self.kept["last"] = out` then `self.kept["last"].sum()`.
    assert out in flow.reaches([_key(tree, flow, "total", "kept_loss")])


def test_an_attribute_nothing_stores_into_reaches_only_itself() -> None:
    tree, flow = _flow(TRAINER)
    out = _key(tree, flow, "out", "collect")
    assert out not in flow.reaches([_attribute(tree, flow, "net")])


def test_attributes_reached_by_computed_names_have_no_key() -> None:
    for dynamic in ("setattr(t, name, 1)", "getattr(t, name)", "t.__dict__.update({})"):
        tree, flow = _flow(TRAINER + f"t = Trainer(None)\nname = 'outputs'\n{dynamic}\n")
        node = next(n for n in ast.walk(tree) if isinstance(n, ast.Attribute))
        assert flow.attribute_key(node) is None, dynamic
    tree, flow = _flow(TRAINER + "t = Trainer(None)\ngetattr(t, 'outputs')\n")
    assert flow.attribute_key(next(n for n in ast.walk(tree) if isinstance(n, ast.Attribute)))


def _reaches_any(flow: NameFlow, tree: ast.Module, target: str, source: str) -> bool:
    """Whether `target` (its first occurrence) may hold a value of any name `source`."""
    sources = {flow.key_of(n) for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == source}
    return bool(sources & flow.reaches([_key(tree, flow, target)]))


def test_a_builtin_keeps_nothing_it_is_given() -> None:
    # `range(n)` stores `n` nowhere: a class whose method calls it does not hold `n`.
    tree, flow = _flow(
        """
        class Stack:
            def __init__(self, n):
                self.sizes = [k for k in range(n)]

        stack = Stack(3)
        """
    )
    assert not _reaches_any(flow, tree, "stack", "n")


def test_a_rebound_builtin_name_or_exec_may_keep_anything() -> None:
    tree, flow = _flow(
        """
        range = make_range()

        def build(n):
            return range(n)

        built = build(3)
        """
    )
    assert _reaches_any(flow, tree, "range", "n")
    tree, flow = _flow(
        """
        def build(n):
            exec(n)

        built = build
        """
    )
    assert _reaches_any(flow, tree, "exec", "n")


def test_a_parameter_holding_exactly_a_layer_keeps_nothing_it_is_called_on() -> None:
    # `critic` is `D`, a `nn.Linear`, in the only call of `train`: calling it on `fake`
    # stores nothing in it.
    tree, flow = _flow(
        """
        import torch

        def train(critic, fake):
            return critic(fake)

        D = torch.nn.Linear(2, 1)
        score = train(D, torch.zeros(2))
        """
    )
    assert not _reaches_any(flow, tree, "critic", "fake")


def test_a_parameter_of_a_function_called_twice_may_keep_what_it_is_called_on() -> None:
    tree, flow = _flow(
        """
        import torch

        def train(critic, fake):
            return critic(fake)

        D = torch.nn.Linear(2, 1)
        score = train(D, torch.zeros(2))
        again = train(lambda x: x, torch.ones(2))
        """
    )
    assert _reaches_any(flow, tree, "critic", "fake")
