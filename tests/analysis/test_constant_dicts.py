"""Module-level dicts of literals no code of the file changes (`analysis/constant_dicts.py`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.constant_dicts import literal_dicts, unchanged_dicts
from tests.analysis.test_value_facets import fact_at

HEAD = 'CFG = {"dim": 4, "lr": 0.1, "name": "run", "betas": (0.9, 0.99), "flag": True}\n'

# (case, code after the dict, whether the dict is known unchanged)
CASES = [
    ("read by key", "def main():\n    c = CFG\n    n = c['dim'] + CFG['dim']\n", True),
    ("read by get and items", "def f():\n    print(CFG.get('lr'), list(CFG.items()))\n", True),
    ("unpacked into keywords", "def f(g):\n    g(**CFG)\n", True),
    ("stored on self and read", "class T:\n    def __init__(self, cfg):\n"
     "        self.a, self.cfg = 1, cfg\n    def run(self):\n        return self.cfg['lr']\n"
     "T(CFG).run()\n", True),
    ("handed to a function that reads it", "def build(cfg):\n    return cfg['dim'] * 2\n"
     "build(CFG)\n", True),
    ("an element handed to unknown code", "import torch\nw = torch.zeros(CFG['dim'])\n", True),
    ("key stored", "def main():\n    c = CFG\n    c['lr'] = 0.5\n", False),
    ("key deleted", "del CFG['lr']\n", False),
    ("updated", "def main(args):\n    CFG.update(vars(args))\n", False),
    ("merged in place", "def main(extra):\n    global CFG\n    CFG |= extra\n", False),
    ("changed in place through a name", "def main(extra):\n    c = CFG\n    c |= extra\n", False),
    ("changed by a function of the file", "def tweak(cfg):\n    cfg['lr'] = 1.0\n"
     "tweak(CFG)\n", False),
    ("handed to unknown code", "import json\njson.dump(CFG, open('x', 'w'))\n", False),
    ("handed to a method", "class A:\n    def set(self, cfg):\n        cfg['x'] = 1\n"
     "A().set(CFG)\n", False),
    ("stored on self, changed by another method", "class T:\n"
     "    def __init__(self, cfg):\n        self.cfg = cfg\n    def tune(self):\n"
     "        self.cfg['lr'] = 1.0\nT(CFG)\n", False),
    ("stored on self, changed by a subclass", "class T:\n"
     "    def __init__(self, cfg):\n        self.cfg = cfg\nclass U(T):\n"
     "    def tune(self):\n        self.cfg.pop('lr')\nU(CFG)\n", False),
    ("stored on another object", "class T:\n    pass\nt = T()\nt.cfg = CFG\n", False),
    ("put in a list", "def main():\n    configs = [CFG]\n    configs[0]['lr'] = 2\n", False),
    ("bound by a walrus, then changed", "def main():\n    if (c := CFG):\n        c['lr'] = 2\n",
     False),
    ("returned", "def get():\n    return CFG\nget()['lr'] = 3\n", False),
    ("rebound", "CFG = {'dim': 8}\n", False),
]  # fmt: skip


@pytest.mark.parametrize(("case", "code", "known"), CASES, ids=[c[0] for c in CASES])
def test_a_settings_dict_is_known_unless_something_may_change_it(
    case: str, code: str, known: bool
) -> None:
    tree = ast.parse(textwrap.dedent(HEAD + code))
    candidates = literal_dicts(tree)
    assert ("CFG" in unchanged_dicts(tree, candidates)) is known, case


NESTED = (
    'CFG = {"model": {"dim": 4, "layers": [8, 8]}, "init": [0, 0], "lr": 0.1}\n'
    "import torch\nimport numpy as np\n"
)

# (case, code after a dict holding a dict and lists, whether the dict is known unchanged)
NESTED_CASES = [
    ("read by keys", "def f():\n    return CFG['model']['dim'] + CFG['lr']\n", True),
    ("a list copied into a tensor", "t = torch.tensor(CFG['init'], dtype=torch.float32)\n",
     True),
    ("a list copied into an array", "a = np.asarray(CFG['model']['layers'])\n", True),
    ("a list iterated and measured",
     "def f():\n    for n in CFG['model']['layers']:\n        print(n)\n"
     "    return len(CFG['init']), list(zip(CFG['init'], CFG['init']))\n", True),
    ("a literal element handed to unknown code",
     "w = torch.nn.Linear(CFG['model']['dim'], 2)\n", True),
    ("a part unpacked into keywords", "def f(g):\n    g(**CFG['model'])\n", True),
    ("handed whole, parts read and copied", "def build(cfg):\n"
     "    return torch.tensor(cfg['init']), {'lr': cfg['lr'], 'n': cfg['model']['dim']}\n"
     "build(CFG)\n", True),
    ("a key of a part stored", "CFG['model']['dim'] = 8\n", False),
    ("a list appended to", "CFG['init'].append(1)\n", False),
    ("a list changed by index", "def f(i):\n    CFG['model']['layers'][i] = 2\n", False),
    ("a part changed through a name", "def f():\n    m = CFG['model']\n    m['dim'] = 8\n",
     False),
    ("a part changed through a parameter", "def grow(layers):\n    layers.append(4)\n"
     "def f(cfg):\n    grow(cfg['model']['layers'])\n\nf(CFG)\n", False),
    ("a part read by an unknown key and changed", "def f(k):\n    CFG[k].clear()\n", False),
    ("a part handed to unknown code", "import random\nrandom.shuffle(CFG['init'])\n", False),
    ("a part returned", "def f():\n    return CFG['model']\nf()['dim'] = 2\n", False),
    ("a part put in a list", "parts = [CFG['init']]\nparts[0].append(3)\n", False),
    ("the dict or a part, then changed", "def f(flag):\n"
     "    c = CFG if flag else CFG['model']\n    c['layers'].append(2)\n", False),
    ("a part by a walrus, then changed", "def f():\n"
     "    if (m := CFG['model']):\n        m['layers'].clear()\n", False),
]  # fmt: skip


@pytest.mark.parametrize(("case", "code", "known"), NESTED_CASES, ids=[c[0] for c in NESTED_CASES])
def test_a_nested_settings_dict_is_known_unless_something_may_change_a_part(
    case: str, code: str, known: bool
) -> None:
    tree = ast.parse(textwrap.dedent(NESTED + code))
    candidates = literal_dicts(tree)
    assert "CFG" in candidates
    assert ("CFG" in unchanged_dicts(tree, candidates)) is known, case


def test_only_settings_values_under_string_keys_are_candidates() -> None:
    """Literals, lists of literals and dicts of those under string keys (three deep at
    most); not lists of lists, calls, unpacking or other keys."""
    tree = ast.parse(
        "A = {'n': 1, 's': 'x', 't': (1, -2.5), 'z': None}\n"
        "B = {'layers': [64, 64], 'opt': {'lr': 0.1, 'betas': (0.9, 0.99)}}\n"
        "C = {1: 'x'}\n"
        "D = {'w': make()}\n"
        "E = {**A}\n"
        "F = {'grid': [[1, 2], [3, 4]]}\n"
        "G = {'a': {'b': {'c': {'d': {'e': 1}}}}}\n"
        "H = {'opt': {1: 'x'}}\n"
    )
    assert set(literal_dicts(tree)) == {"A", "B"}


def test_a_dict_built_from_keywords_is_a_candidate() -> None:
    """`dict(key=...)` builds the same dict as the display, unless `dict` is not the
    builtin (the module binds the name) or the call unpacks or takes positional data."""
    tree = ast.parse(
        "A = dict(n=1, lr=0.1, name='x')\n"
        "B = dict(layers=[64, 64])\n"
        "C = dict(**A)\n"
        "D = dict([('n', 1)])\n"
    )
    assert set(literal_dicts(tree)) == {"A", "B"}
    shadowed = ast.parse("from helpers import dict\nA = dict(n=1)\n")
    assert literal_dicts(shadowed) == {}
    rebound = ast.parse("A = dict(n=1)\ndict = OrderedDict\n")
    assert literal_dicts(rebound) == {}


@pytest.mark.parametrize(
    ("code", "known"),
    [
        ("CFG = dict(hidden=4, sigma=2.0)\ndef f():\n    h = CFG['hidden']  # <- h\n"
         "    return h\nf()\n", 4),
        # Changed by the file: unknown inside functions.
        ("CFG = dict(hidden=4)\nCFG['hidden'] = 8\ndef f():\n    h = CFG['hidden']  # <- h\n"
         "    return h\nf()\n", None),
    ],
)  # fmt: skip
def test_a_key_of_a_dict_built_from_keywords(
    code: str, known: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert fact_at(code, monkeypatch).const == known


_TRAINER = (
    "class Trainer:\n    def __init__(self, cfg):\n        self.cfg = cfg\n"
    "    def step(self):\n        n = self.cfg['dim']  # <- n\n        return n\n"
)


@pytest.mark.parametrize(
    ("main", "dim"),
    [
        ("def main():\n    t = Trainer(CFG)\n    t.step()\n", 4),
        # A local bound once to the module's dict passes that dict.
        ("def main():\n    c = CFG\n    t = Trainer(c)\n    t.step()\n", 4),
        # Bound twice, or to something else: not known to be the dict.
        (
            "def main(other):\n    c = CFG\n    if other:\n        c = other\n"
            "    t = Trainer(c)\n    t.step()\n",
            None,
        ),
        ("def main(other):\n    c = other\n    t = Trainer(c)\n    t.step()\n", None),
    ],
)
def test_a_settings_dict_kept_on_self_through_a_local_name(
    main: str, dim: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at('CFG = {"dim": 4, "lr": 0.1}\n' + _TRAINER + main, monkeypatch)
    assert value.const == dim
