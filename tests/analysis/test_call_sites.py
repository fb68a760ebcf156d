"""Parameters known from call sites: `def train(model, ...)` gets the facts every call in the
file passes, and nothing when some mention of it is not a visible call."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.call_sites import candidates, may_learn
from gradguard.analysis.events import Accumulation
from gradguard.analysis.model import analyse_module, learn_caller_facts
from gradguard.analysis.values import Grad, Kind
from tests.analysis.test_value_facets import fact_at

PRELUDE = "import torch\nfrom torch import nn\nnet = nn.Linear(3, 1)\n"

# Each snippet defines `step(model, x)`; the expected value is what every call says of
# `model` (None: nothing is learnt) and the grad mode the calls run under.
STEP = """
def step(model, x):
    loss = model(x).sum()
    loss.backward()
"""

CASES = [
    ("one call with a module", "step(net, torch.randn(2, 3))", Kind.MODULE, True),
    ("every call with a module", "step(net, 1)\nstep(nn.Linear(3, 1), 2)", Kind.MODULE, True),
    ("keyword arguments", "step(x=torch.randn(2, 3), model=net)", Kind.MODULE, True),
    ("called from a function", "def main():\n    step(net, 0)\nmain()", Kind.MODULE, True),
    ("a chain of two callers", "def fit(m):\n    step(m, 0)\nfit(net)", Kind.MODULE, True),
    ("one caller passes something unknown", "step(net, 0)\nstep(load(), 0)", None, True),
    ("passed as a callback too", "step(net, 0)\nrun(step)", None, None),
    ("rebound elsewhere", "step(net, 0)\nstep = wrap(step)", None, None),
    ("argument unpacking", "step(*[net, 0])", None, None),
    ("keyword unpacking", "step(**{'model': net, 'x': 0})", Kind.MODULE, True),
    ("unpacking an unknown dict", "step(**load())", None, None),
    ("unpacking an unknown dict after a module", "step(net, **load())", Kind.MODULE, True),
    ("a name given twice", "step(net, **{'model': net, 'x': 0})", None, None),
    ("never called", "", None, None),
    ("under no_grad", "with torch.no_grad():\n    step(net, 0)", Kind.MODULE, False),
    (
        "under no_grad once",
        "step(net, 0)\nwith torch.no_grad():\n    step(net, 0)",
        Kind.MODULE,
        None,
    ),
]


@pytest.mark.parametrize(
    ("title", "calls", "model", "grad_enabled"), CASES, ids=[c[0] for c in CASES]
)
def test_parameter_facts_from_call_sites(
    title: str, calls: str, model: Kind | None, grad_enabled: bool | None
) -> None:
    source = PRELUDE + STEP + textwrap.dedent(calls) + "\n"
    tree = ast.parse(source)
    step = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "step")
    facts = learn_caller_facts(tree, source).get(id(step))
    if model is None and grad_enabled is None:
        assert facts is None
        return
    assert facts is not None
    assert facts.grad_enabled is grad_enabled
    known = facts.parameters["model"].kind
    assert known is (model if model is not None else Kind.UNKNOWN)


def test_a_known_parameter_reaches_the_body() -> None:
    """With a module from every call, the loss in `step` is tracked before any backward."""
    source = PRELUDE + textwrap.dedent(
        """
        def step(model, x, total):
            out = model(x).sum()
            total += out
            return total
        step(net, torch.randn(2, 3), 0.0)
        """
    )
    analysis = analyse_module(ast.parse(source), source)
    accumulated = analysis.events.of(Accumulation)
    assert [u.added.grad for u in accumulated] == [Grad.TRACKED]


GRAPH_CALLS = [
    # (title, the calls of `fit`, whether the history built before the call is known inside)
    ("one call with a layer's output", "fit(model(x))", True),
    (
        "a call in a loop, given what was built before it",
        "feats = model(x)\nfor _ in range(2):\n    fit(feats)",
        True,
    ),
    (
        "two calls, each with a graph of its own",
        "fit(model(x))\nfit(model(x))",
        True,
    ),
    ("one call with a graph, one without", "fit(model(x))\nfit(x)", False),
    ("detached", "fit(model(x).detach())", False),
    ("under no_grad", "with torch.no_grad():\n    fit(model(x))", False),
]


@pytest.mark.parametrize(("title", "calls", "known"), GRAPH_CALLS, ids=[c[0] for c in GRAPH_CALLS])
def test_the_history_an_argument_brings_is_known_in_the_callee(
    title: str, calls: str, known: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """That an argument certainly went through saving operations at every call is part of
    the parameter's value in the callee (one node of the parameter): a backward there runs
    through it."""
    snippet = (
        "def fit(features):\n    kept = features.sum()  # <- kept\n    kept.backward()\n"
        + textwrap.dedent(calls)
        + "\n"
    )
    value = fact_at(snippet, monkeypatch)
    brought = [n for n in value.graph if n.brought]
    assert bool(brought) is known, value.graph


def test_methods_learn_from_calls_on_self() -> None:
    source = PRELUDE + textwrap.dedent(
        """
        class Trainer:
            def __init__(self):
                self.model = nn.Linear(3, 1)

            def fit(self, batches):
                for x in batches:
                    self.train_batch(self.model, x)

            def train_batch(self, model, x):
                loss = model(x).sum()
                loss.backward()
        """
    )
    tree = ast.parse(source)
    method = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "train_batch"
    )
    facts = learn_caller_facts(tree, source)[id(method)]
    assert facts.parameters["model"].kind is Kind.MODULE


TWO_TRAINERS = """
class Trainer:
    def fit(self, batches):
        for x in batches:
            self.train_batch(net, x)

    def train_batch(self, model, x):
        loss = model(x).sum()
        loss.backward()

class Tuner:
    def train_batch(self, model, x):
        loss = model(x).sum()
        loss.backward()
"""

SAME_NAME = [
    ("every call resolved to one class", "Trainer().fit([1])\nTuner().train_batch(net, 2)", True),
    ("no call of the other class's method", "Trainer().fit([1])", True),
    ("a call on an unknown object", "Trainer().fit([1])\nload().train_batch(net, 2)", False),
    ("the method passed around", "Trainer().fit([1])\nrun(Tuner().train_batch)", False),
    ("the other class subclassed", "Trainer().fit([1])\nclass Sub(Tuner):\n    pass", True),
    ("a module-level function of the name", "def train_batch(model, x):\n    pass", True),
]


@pytest.mark.parametrize(("title", "more", "learns"), SAME_NAME, ids=[c[0] for c in SAME_NAME])
def test_methods_of_one_name_in_two_classes_learn_from_their_own_calls(
    title: str, more: str, learns: bool
) -> None:
    """A call the interpreter resolved to one class's method is accounted for: the method
    of the same name in another class does not make the first unknown."""
    source = PRELUDE + TWO_TRAINERS + textwrap.dedent(more) + "\n"
    tree = ast.parse(source)
    method = next(
        n
        for cls in tree.body
        if isinstance(cls, ast.ClassDef) and cls.name == "Trainer"
        for n in cls.body
        if isinstance(n, ast.FunctionDef) and n.name == "train_batch"
    )
    facts = learn_caller_facts(tree, source).get(id(method))
    if not learns:
        assert facts is None
        return
    assert facts is not None
    assert facts.parameters["model"].kind is Kind.MODULE


def test_functions_of_one_name_in_two_scopes_stay_unknown() -> None:
    """Two nested functions named alike: which one a call runs is a matter of scopes the
    survey does not follow, so neither learns."""
    source = PRELUDE + textwrap.dedent(
        """
        def a():
            def closure(model):
                model(1).sum().backward()
            closure(net)

        def b():
            def closure(model):
                model(1).sum().backward()
            closure(net)
        a()
        b()
        """
    )
    tree = ast.parse(source)
    closures = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "closure"]
    facts = learn_caller_facts(tree, source)
    assert all(id(c) not in facts for c in closures)


def test_framework_hooks_stay_unknown() -> None:
    """A class with a base the file does not define: its methods are called by the
    framework too, so their parameters stay unknown even when the file calls them."""
    source = PRELUDE + textwrap.dedent(
        """
        import lightning

        class Module(lightning.LightningModule):
            def training_step(self, model, x):
                loss = model(x).sum()
                loss.backward()

            def check(self):
                self.training_step(net, 0)
        """
    )
    tree = ast.parse(source)
    hook = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "training_step"
    )
    assert id(hook) not in learn_caller_facts(tree, source)


def test_a_parameter_plotted_or_given_to_numpy_is_learnt_from_callers() -> None:
    """`def show(history): plt.plot(history)` converts what its callers give it: the
    function is worth a second pass, and `history` gets the callers' list of losses."""
    tree = ast.parse("def show(history):\n    plt.plot(history)\n\ndef log(x):\n    x.sum2()\n")
    show, log = tree.body
    assert isinstance(show, ast.FunctionDef) and isinstance(log, ast.FunctionDef)
    assert may_learn(show)
    assert not may_learn(log)


@pytest.mark.parametrize(
    ("body", "learns"),
    [
        ("return self.criterion(outputs, target)", True),  # given to a module kept on self
        ("return F.nll_loss(outputs, target)", True),  # given to a library function
        ("self.outputs = outputs", True),  # a setter: the attribute holds it
        ("return self.a.b(outputs)", False),  # a callee too far to tell
        ("self.outputs = outputs.title()", False),  # not the parameter, and nothing telling
        ("self.outputs = outputs.clone()", True),  # a tensor's copy keeps its history
        ("return outputs", False),
    ],
)
def test_a_method_handing_a_parameter_on_is_learnt_from_callers(body: str, learns: bool) -> None:
    """A method giving its parameter to a loss kept on `self` (`self.criterion(outputs,
    y)`) or keeping it on `self`: what the callers pass decides a finding there."""
    method = ast.parse(f"def eval_batch(self, outputs, target):\n    {body}\n").body[0]
    assert isinstance(method, ast.FunctionDef)
    assert may_learn(method, skip_self=True) is learns


@pytest.mark.parametrize(
    ("body", "learns"),
    [
        ("E[:, 0::2] = 0.0", True),  # an item store into the parameter
        ("E[0] += 1.0", True),
        ("w -= 0.1", True),  # an augmented assignment updates it in place
        ("E = E[:, 0::2]", False),  # a rebinding, not a change of what was passed
        ("local = []; local[0] = E", False),
    ],
)
def test_a_parameter_changed_in_place_is_learnt_from_callers(body: str, learns: bool) -> None:
    """Whether `E[:, 0::2] = ...` raises depends on what the callers pass (a leaf weight
    that requires grad), so such a function is worth a second pass."""
    (function,) = ast.parse(f"def fill(E, w):\n    {body}\n").body
    assert isinstance(function, ast.FunctionDef)
    assert may_learn(function) is learns


@pytest.mark.parametrize(
    ("body", "learns"),
    [
        ("_, pred = logits.max(dim=1)", True),  # a tensor method of a parameter
        ("groups = model.backbone.parameters()", True),  # through an attribute chain
        ("build([model, logits])", True),  # handed on inside a list literal
        ("opt = make({'params': logits})", True),  # or a dict literal
        ("name = logits.title()", False),  # a method that tells nothing
        ("build([1, 2])", False),
        ("grid(model.size)", True),  # a setting of the namespace a caller passes, handed on
        ("grid(model.cfg.sizes[0])", True),
        ("grid(other.size)", False),  # an attribute of something else
        ("name = model.size", False),  # read, not handed on
        ("grid(-model.size, model.size * 2)", True),  # bounds computed from it
        ("grid(other + 1)", False),
        ("x, y = logits", True),  # taken apart: the parts are what the callers passed
        ("obs = logits['obs']", True),
        ("first = logits[0]", True),
        ("head = logits[:2]", False),  # a slice of a tensor is no part of a container
        ("x, y = 1, 2", False),
    ],
)
def test_what_a_function_does_with_a_parameter_makes_it_learn(body: str, learns: bool) -> None:
    """A function learns from its callers when what it does with a parameter depends on
    what they pass: a tensor's methods, a module's parameters, a helper given it."""
    (function,) = ast.parse(f"def f(model, logits):\n    {body}\n").body
    assert isinstance(function, ast.FunctionDef)
    assert may_learn(function) is learns


_TRAINER = """
class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.lr = lr

def main(net):
    return Trainer(net, 0.1)
"""


@pytest.mark.parametrize(
    ("extra", "learns"),
    [
        ("", True),
        ("registry = {'t': Trainer}", False),  # handed on by name: other callers unseen
        ("class Fancy(Trainer):\n    pass", False),  # a subclass calls __init__ too
        ("Trainer = None", False),
    ],
)
def test_a_constructor_learns_from_its_calls(extra: str, learns: bool) -> None:
    """`Trainer(net, 0.1)` is the only way the file builds a Trainer: `__init__` learns
    its parameters from those calls (and so do the attributes it keeps on `self`)."""
    tree = ast.parse(_TRAINER + extra + "\n")
    init = tree.body[0].body[0]
    assert isinstance(init, ast.FunctionDef)
    assert (id(init) in candidates(tree)) is learns


RESOLVED = """
import torch
from torch import nn
def log(model):
    print(model.weight.grad)
def other(model):
    pass
def fit(model, hook):
    for _ in range(2):
        hook(model)
def main():
    fit(nn.Linear(2, 1), log)
main()
"""


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("", "log"),
        # Two callers hand over two callbacks: no one function is known for the call.
        ("def again():\n    fit(nn.Linear(2, 1), other)\nagain()\n", None),
        # A caller the analysis cannot map (argument unpacking): nothing is learnt.
        ("fit(*args)\n", None),
    ],
)
def test_a_callback_every_caller_passes_is_the_function_a_call_runs(
    source: str, expected: str | None
) -> None:
    """`resolved_callees`: the function of the file a call through a parameter runs, when
    every interpretation of the call ran the same one."""
    text = RESOLVED + source
    tree = ast.parse(text)
    analysis = analyse_module(tree, text)
    (call,) = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "hook"
    ]
    found = analysis.resolved_callees().get(id(call))
    assert (found.name if found is not None else None) == expected


_SAME_NAME = """
import torch
from torch import nn

class Trainer:
    def train(self, module, batches):
        {switch}
        for x in batches:
            module(x).sum().backward()

Trainer().train(nn.Linear(3, 1), [torch.randn(2, 3)])
"""


@pytest.mark.parametrize(
    ("switch", "learns"),
    [
        ("module.train()", True),  # nn.Module.train of a torch layer: not Trainer.train
        ("pass", True),
        ("other.train()", True),  # no arguments: it cannot be a call of Trainer.train
        ("other.train(load(), [])", False),  # it may be one, given a module not known
    ],
)
def test_a_torch_module_method_of_the_same_name_is_not_a_call_of_the_method(
    switch: str, learns: bool
) -> None:
    """`Trainer.train(module)` learns from its callers although `module.train()` in its body
    is a call of the same name: the interpreter ran that one as the torch module's own."""
    source = _SAME_NAME.format(switch=switch)
    tree = ast.parse(source)
    train = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "train")
    facts = learn_caller_facts(tree, source).get(id(train))
    assert (facts is not None and facts.parameters["module"].kind is Kind.MODULE) is learns


@pytest.mark.parametrize(
    ("body", "learns"),
    [
        ("g = torch.autograd.grad(model, logits)", True),  # an imported module's function
        ("n = np.linalg.norm(logits)", True),
        ("s = torch.nn.utils.clip_grad_norm_(model, 1.0)", True),
        ("table = {}; table.rows.insert(logits)", False),  # a local object's attribute chain
        ("t = threading.Thread(target=work, args=(model, 2))", True),  # a thread's target
        ("t = threading.Thread(target=work, kwargs={'data': logits})", True),
        ("t = threading.Thread(target=work, args=(1, 2))", False),
    ],
)
def test_a_parameter_handed_to_an_imported_module_makes_it_learn(body: str, learns: bool) -> None:
    """`torch.autograd.grad(loss, params)` or `np.linalg.norm(x)` in a function whose
    parameters come from its callers: what the callers pass (gradients without a graph, a
    tensor that requires grad) decides a finding at that call. So does a thread started on
    a parameter (`Thread(target=work, args=(model,))` calls `work(model)`)."""
    (function,) = ast.parse(f"def f(model, logits):\n    {body}\n").body
    assert isinstance(function, ast.FunctionDef)
    assert may_learn(function) is learns


_THREADED = """
import threading
import torch
from torch import nn

def work(model, steps, data=None):
    model(data).sum().backward()

class Runner:
    def _loop(self, model):
        model(torch.randn(2, 3)).sum().backward()

    def start(self, model):
        threading.Thread(target=self._loop, args=(model,)).start()

net = nn.Linear(3, 1)
with torch.no_grad():
    threading.Thread(target=work, args=(net, 2), kwargs={"data": torch.randn(2, 3)}).start()
Runner().start(net)
"""


def test_a_thread_calls_its_target_with_grad_on() -> None:
    """`Thread(target=work, args=(net, 2), kwargs={...})` calls `work(net, 2, data=...)` in
    a new thread, which starts with grad on whatever the mode it was started under (grad
    mode is thread-local); a method target (`target=self._loop`) is called bound."""
    tree = ast.parse(_THREADED)
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    facts = learn_caller_facts(tree, _THREADED)
    work = facts[id(functions["work"])]
    assert work.grad_enabled is True
    assert work.parameters["model"].kind is Kind.MODULE
    assert work.parameters["steps"].kind is Kind.SCALAR
    assert work.parameters["data"].kind is Kind.TENSOR
    loop = facts[id(functions["_loop"])]
    assert loop.parameters["model"].kind is Kind.MODULE


@pytest.mark.parametrize(
    "start",
    [
        "Thread(target=work, args=(net, 2))",  # a `Thread` the file defines itself
        "threading.Thread(target=work, args=args)",  # arguments not known one by one
        "threading.Thread(target=work, args=(net,))",  # a TypeError in the thread
    ],
)
def test_a_thread_of_unknown_arguments_teaches_nothing(start: str) -> None:
    source = textwrap.dedent(
        f"""
        import threading
        from torch import nn

        class Thread:
            def __init__(self, target, args):
                self.run = lambda: target(*args)

        def work(model, steps):
            model.train()

        net = nn.Linear(3, 1)
        args = (net, 2)
        {start}
        """
    )
    tree = ast.parse(source)
    work = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    assert id(work) not in learn_caller_facts(tree, source)


_ON_A_BASE = """
{base}

class Runner({base_name}):
    def run(self, batches):
        with torch.no_grad():
            for x in batches:
                self.fit_one(net, x)

    def fit_one(self, model, x):
        model(x).sum().backward()

Runner().run([torch.randn(2, 3)])
"""


SETTINGS = """
import argparse

def axis(count):
    made = torch.arange(0, count)  # <- made
    return made

def fit(settings):
    return axis(settings.count)

def options(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type={kind}, default={default})
    return parser.parse_args(argv)

fit(options([]))
"""


@pytest.mark.parametrize(
    ("base", "base_name", "learns"),
    [
        ("class Base:\n    def close(self):\n        pass", "Base", True),
        ("class Base(object):\n    pass", "Base", True),
        # An override: the base's own code calling `self.fit_one` would run it unseen.
        ("class Base:\n    def fit_one(self, model, x):\n        pass", "Base", False),
        # Two levels of the file's own classes, the lowest on nn.Module.
        ("class Root(nn.Module):\n    pass\nclass Base(Root):\n    pass", "Base", True),
        # A base of the file on a framework class: the framework may call `fit_one`.
        ("import lightning\nclass Base(lightning.LightningModule):\n    pass", "Base", False),
        ("from engine import Base", "Base", False),
        # A metaclass or a class decorator may wrap the methods.
        ("class Base(metaclass=Registry):\n    pass", "Base", False),
        ("@register\nclass Base:\n    pass", "Base", False),
        # Two classes of the name: which one is the base is a matter of scopes.
        (
            "def a():\n    class Base:\n        pass\n    return Base\n"
            "def b():\n    class Base(Engine):\n        pass\n    return Base",
            "Base",
            False,
        ),
    ],
)
def test_a_method_on_a_plain_base_of_the_file_learns_from_calls(
    base: str, base_name: str, learns: bool
) -> None:
    """A class built on a plain class of the file (itself on `object` or `nn.Module`) is
    as plain as one on `object`: only the file's code calls its methods, so `fit_one`
    learns its callers' arguments and grad mode (here: every call under no_grad)."""
    source = PRELUDE + _ON_A_BASE.format(base=base, base_name=base_name)
    tree = ast.parse(source)
    method = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "fit_one"
    )
    facts = learn_caller_facts(tree, source).get(id(method))
    if not learns:
        assert facts is None
        return
    assert facts is not None
    assert facts.grad_enabled is False
    assert facts.parameters["model"].kind is Kind.MODULE


@pytest.mark.parametrize(
    ("kind", "default", "integer"), [("int", "12", True), ("float", "12.0", False)]
)
def test_a_setting_handed_on_by_attribute_reaches_the_helper(
    kind: str, default: str, integer: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fit(settings)` only hands `settings.count` on: it learns what its one caller
    passes (the parsed defaults), so `axis` knows its count is the int 12 (an int64 range)
    or the float 12.0 (a float range)."""
    value = fact_at(SETTINGS.format(kind=kind, default=default), monkeypatch)
    assert value.integer_dtype is integer


@pytest.mark.parametrize(
    ("init", "learns"),
    [
        ("self.lr = opts.lr", True),  # a setting read out of a parameter
        ("self.lr = opts['lr']", True),  # an item under a literal key
        ("self.lr = opts[key]", False),  # a key only known at run time
        ("self.lr = opts.lr * 2", False),  # computed: not a part the callers hand over
        ("lr = opts.lr", False),  # nothing kept on `self`
        ("self.lr = other.lr", False),  # not a parameter
    ],
)
def test_a_constructor_keeping_a_part_of_a_parameter_learns(init: str, learns: bool) -> None:
    """`self.lr = opts.lr` keeps what the callers pass in `opts`: `__init__` learns it."""
    source = f"class Learner:\n    def __init__(self, opts):\n        {init}\n\nLearner(make())\n"
    tree = ast.parse(source)
    init_node = tree.body[0].body[0]
    assert isinstance(init_node, ast.FunctionDef)
    assert (id(init_node) in candidates(tree)) is learns
