"""Facts about `named_parameters()` loops that freeze parameters chosen by their names
(`gradguard.analysis.parameter_names`): the names a module's parameters may have, and
whether a loop's name tests certainly freeze every one of them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gradguard.analysis.parameter_names import ParameterName, certainly_frozen
from gradguard.analysis.submodules import foreign_children
from tests.analysis.test_value_facets import fact_at

NET = """
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(2, 4)
        self.norm = nn.LayerNorm(4)

    def forward(self, h):
        return self.norm(self.proj(h))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Linear(4, 2)

    def forward(self, h):
        return self.head(self.block(h))


net = Net()
"""


def _frozen_after(loop: str, monkeypatch: pytest.MonkeyPatch) -> bool:
    value = fact_at(NET + loop, monkeypatch)
    return value.frozen is not None


@pytest.mark.parametrize(
    "loop",
    [
        # No name holds the key (names are `block.proj.weight`, ..., `head.bias`).
        "for name, p in net.named_parameters():  # <- net\n"
        '    if "Head" not in name:\n'
        "        p.requires_grad = False\n",
        # Every name starts with one of the prefixes.
        "for name, p in net.named_parameters():  # <- net\n"
        '    if name.startswith(("block", "head")):\n'
        "        p.requires_grad_(False)\n",
        # `any` over a list bound before the loop; a statement that leaves `p` alone.
        'keys = ["proj", "norm", "head"]\nseen = []\n'
        "for name, p in net.named_parameters():  # <- net\n"
        "    seen.append(name)\n"
        "    if any(k in name for k in keys):\n"
        "        p.requires_grad = False\n",
        # Both branches freeze: the test need not be known.
        "import sys\n"
        "for name, p in net.named_parameters():  # <- net\n"
        "    if sys.argv[0] in name:\n"
        "        p.requires_grad = False\n"
        "    else:\n"
        "        p.requires_grad = False\n",
        # The first part of every name (`block`, `head`) is not listed.
        "for name, p in net.named_parameters():  # <- net\n"
        '    if name.split(".")[0] not in ["classifier", "fc"]:\n'
        "        p.requires_grad = False\n",
        # A name nothing equals, from a settings dict.
        'cfg = {"keep": "classifier.weight"}\n'
        "for name, p in net.named_parameters():  # <- net\n"
        '    if name != cfg["keep"]:\n'
        "        p.requires_grad = False\n",
    ],
)
def test_a_loop_whose_tests_pass_every_name_freezes_the_module(
    loop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _frozen_after(loop, monkeypatch)


@pytest.mark.parametrize(
    "loop",
    [
        # The head's names hold the key.
        "for name, p in net.named_parameters():  # <- net\n"
        '    if "head" not in name:\n'
        "        p.requires_grad = False\n",
        # The head's first part is listed.
        "for name, p in net.named_parameters():  # <- net\n"
        '    if name.split(".")[0] not in ("head",):\n'
        "        p.requires_grad = False\n",
        # Only the block's names start so.
        "for name, p in net.named_parameters():  # <- net\n"
        '    if name.startswith("block"):\n'
        "        p.requires_grad = False\n",
        # The key is not known here.
        "import sys\n"
        "for name, p in net.named_parameters():  # <- net\n"
        "    if sys.argv[1] not in name:\n"
        "        p.requires_grad = False\n",
        # The body rebinds what the test reads.
        'key = "Head"\n'
        "for name, p in net.named_parameters():  # <- net\n"
        "    key = name[:4]\n"
        "    if key not in name:\n"
        "        p.requires_grad = False\n",
        # The list is changed through another name.
        'keys = ["Head"]\nalias = keys\nalias.append("head")\n'
        "for name, p in net.named_parameters():  # <- net\n"
        "    if not any(k in name for k in keys):\n"
        "        p.requires_grad = False\n",
        # A helper changes the settings dict.
        'def use(c):\n    c["key"] = "head"\n'
        'cfg = {"key": "Head"}\nuse(cfg)\n'
        "for name, p in net.named_parameters():  # <- net\n"
        '    if cfg["key"] not in name:\n'
        "        p.requires_grad = False\n",
        # `continue` skips the freeze for the head.
        "for name, p in net.named_parameters():  # <- net\n"
        '    if name.startswith("head"):\n'
        "        continue\n"
        "    p.requires_grad = False\n",
        # A call handed the parameter: not a freeze the loop certainly makes.
        "def check(t):\n    return t\n"
        "for name, p in net.named_parameters():  # <- net\n"
        '    if "Head" not in name:\n'
        "        check(p)\n",
        # `bias` names only: the weights train.
        "for name, p in net.named_parameters():  # <- net\n"
        '    if name.endswith("bias"):\n'
        "        p.requires_grad = False\n",
    ],
)
def test_a_loop_leaving_some_name_untested_or_unfrozen_freezes_nothing(
    loop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not _frozen_after(loop, monkeypatch)


def test_a_container_of_modules_written_out_names_them_by_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`nn.Sequential(a, b, c)` holds its modules under `0`, `1`, `2`: the ReLU holds no
    parameter, so `0.` and `2.` start every name."""
    loop = (
        "seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))\n"
        "for name, p in seq.named_parameters():  # <- seq\n"
        '    if name.startswith(("0.", "2.")):\n'
        "        p.requires_grad = False\n"
    )
    assert fact_at(loop, monkeypatch).frozen is not None


@pytest.mark.parametrize(
    "built",
    [
        # An OrderedDict's keys name the modules, not their positions.
        "seq = nn.Sequential(OrderedDict([('0', nn.Linear(2, 2)), ('head', nn.Linear(2, 2))]))",
        # A list of modules handed in: what it holds is not known.
        "seq = nn.Sequential(*make_layers())",
        # Another layer appended after it was built.
        "seq = nn.Sequential(nn.Linear(2, 2))\nseq.append(nn.Linear(2, 2))",
    ],
)
def test_a_container_whose_names_are_not_known_decides_nothing(
    built: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = (
        "from collections import OrderedDict\n"
        "from layers import make_layers\n"
        f"{built}\n"
        "for name, p in seq.named_parameters():  # <- seq\n"
        '    if name.startswith("0."):\n'
        "        p.requires_grad = False\n"
    )
    assert fact_at(loop, monkeypatch).frozen is None


@pytest.mark.parametrize(
    ("change", "known"),
    [
        ("pass", True),
        # Through an attribute: a change of that attribute's container only.
        ("class Box:\n    pass\nbox = Box()\nbox.items = []\nbox.items.append(1)", True),
        # Through an item of the outer container: the inner one changes.
        ("outer[1][0] = nn.Linear(2, 2)", False),
        # Through a plain name shared beyond one function: it may be a module container.
        ("other = [1]\nother.append(2)", False),
    ],
)
def test_containers_are_followed_only_when_changed_through_attributes(
    change: str, known: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = (
        "outer = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 2), nn.ReLU()))\n"
        f"{change}\n"
        "for name, p in outer.named_parameters():  # <- outer\n"
        '    if "adapter" not in name:\n'
        "        p.requires_grad = False\n"
    )
    assert (fact_at(code, monkeypatch).frozen is not None) is known


def test_a_list_built_by_a_comprehension_names_its_modules_by_some_index(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(n)])`:
    `layers.<digits>.weight`, `layers.<digits>.bias` for every index; a key without digits
    found in none of the known pieces is in no name, one with digits may be."""
    built = (
        "class Stack(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])\n"
        "    def forward(self, h):\n"
        "        for layer in self.layers:\n"
        "            h = layer(h)\n"
        "        return h\n"
        "net = Stack()\n"
    )
    frozen = (
        "for name, p in net.named_parameters():  # <- net\n"
        '    if "adapter" not in name:\n'
        "        p.requires_grad = False\n"
    )
    assert fact_at(built + frozen, monkeypatch).frozen is not None
    for test in (
        '"1" not in name',
        'not name.startswith("layers.2.")',
        'name != "layers.0.weight"',
    ):
        loop = frozen.replace('"adapter" not in name', test)
        assert fact_at(built + loop, monkeypatch).frozen is None, test


@pytest.mark.parametrize(
    ("test", "frozen"),
    [
        # `lateral.<digits>.weight`: what the known pieces decide for every index.
        ('"ATS" not in n', True),
        ('n.startswith("lateral.")', True),
        ('n.endswith(".weight")', True),
        ('not n.startswith("lateral.x")', True),
        ('not n.endswith("x.weight")', True),
        ('n != "lateral.weight"', True),
        ('n.split(".")[0] == "lateral"', True),
        # What depends on the index.
        ('"lateral.1" not in n', False),
        ('not n.startswith("lateral.1")', False),
        ('not n.endswith("0.weight")', False),
        ('n != "lateral.0.weight"', False),
        ('"weight" not in n', False),
    ],
)
def test_a_name_with_an_index_not_known_decides_what_every_index_decides(
    test: str, frozen: bool
) -> None:
    names = (ParameterName(".weight", True, ("lateral.",)),)
    loop = _loop(
        f"for n, p in m.named_parameters():\n    if {test}:\n        p.requires_grad = False\n"
    )
    assert certainly_frozen(loop, names, lambda _: None) == (names if frozen else ())


def _loop(text: str) -> ast.For:
    loop = ast.parse(text).body[0]
    assert isinstance(loop, ast.For)
    return loop


def test_a_name_with_an_unknown_rest_decides_only_what_its_start_decides() -> None:
    """`backbone.` followed by names not known: `startswith("back")` holds for all of them,
    `"conv" in name` may or may not."""
    names = (ParameterName("backbone.", False), ParameterName("head.weight", True))
    starts = _loop(
        'for n, p in m.named_parameters():\n    if n.startswith(("back", "head")):\n'
        "        p.requires_grad = False\n"
    )
    assert certainly_frozen(starts, names, lambda _: None) == names
    inside = _loop(
        'for n, p in m.named_parameters():\n    if "conv" not in n:\n'
        "        p.requires_grad = False\n"
    )
    assert certainly_frozen(inside, names, lambda _: None) == (names[1],)


def _frozen_at_end(code: str, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether `net` is frozen after `code` (which ends with a loop) ran."""
    return fact_at(NET + code + "out = net(x)  # <- net\n", monkeypatch).frozen is not None


@pytest.mark.parametrize(
    "code",
    [
        # No name starts with the prefix the loop unfreezes (`block.proj.weight`, ...).
        "net.requires_grad_(False)\n"
        "for name, p in net.named_parameters():\n"
        '    if name.startswith("classifier"):\n'
        "        p.requires_grad = True\n",
        # None is listed; `requires_grad_()` turns it on as well.
        'wanted = ["fc", "classifier"]\n'
        "net.requires_grad_(False)\n"
        "for name, p in net.named_parameters():\n"
        "    if any(w in name for w in wanted):\n"
        "        p.requires_grad_()\n",
        # Every parameter is turned on, then off again: the loop freezes the module.
        "for name, p in net.named_parameters():\n"
        "    p.requires_grad = True\n"
        '    if name.startswith(("block.", "head.")):\n'
        "        p.requires_grad = False\n",
        # A helper that freezes what it is given and unfreezes no name of it.
        "def finetune_only(m, key):\n"
        "    m.requires_grad_(False)\n"
        "    for name, p in m.named_parameters():\n"
        "        if key in name:\n"
        "            p.requires_grad_(True)\n"
        'finetune_only(net, "Head")\n',
    ],
)
def test_a_loop_unfreezing_no_name_leaves_the_module_frozen(
    code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _frozen_at_end(code, monkeypatch)


@pytest.mark.parametrize(
    "code",
    [
        # The head's names start so: it trains.
        "net.requires_grad_(False)\n"
        "for name, p in net.named_parameters():\n"
        '    if name.startswith("head"):\n'
        "        p.requires_grad = True\n",
        # Which names are turned on is not known here.
        "import sys\n"
        "net.requires_grad_(False)\n"
        "for name, p in net.named_parameters():\n"
        "    if name in sys.argv:\n"
        "        p.requires_grad = True\n",
        # On, then off only for the block: the head trains.
        "for name, p in net.named_parameters():\n"
        "    p.requires_grad = True\n"
        '    if name.startswith("block."):\n'
        "        p.requires_grad = False\n",
        # Unfrozen after the freeze for the head.
        "for name, p in net.named_parameters():\n"
        "    p.requires_grad = False\n"
        '    if "head" in name:\n'
        "        p.requires_grad = True\n",
        # The helper is called where the analysis does not follow (an alias in a list), on
        # names it cannot tell.
        "def unfreeze(m, key):\n"
        "    for name, p in m.named_parameters():\n"
        "        if key in name:\n"
        "            p.requires_grad = True\n"
        "net.requires_grad_(False)\n"
        "hooks = [unfreeze]\n"
        'hooks[0](net, "head")\n',
        # A module whose names are not known (an OrderedDict's keys name the children).
        "from collections import OrderedDict\n"
        "net.requires_grad_(False)\n"
        "seq = nn.Sequential(OrderedDict(make_layers()))\n"
        "for name, p in seq.named_parameters():\n"
        '    if name.startswith("classifier"):\n'
        "        p.requires_grad = True\n",
        # The same loop, unfreezing through `setattr` (not a statement the loop is followed
        # for): any parameter may be unfrozen.
        "net.requires_grad_(False)\n"
        "for name, p in net.named_parameters():\n"
        '    if name.startswith("classifier"):\n'
        '        setattr(p, "requires_grad", True)\n',
        # A loop in a function nothing runs here: it may run on anything.
        "def later(m):\n"
        "    return m\n"
        "    for name, p in m.named_parameters():\n"
        '        if name.startswith("classifier"):\n'
        "            p.requires_grad = True\n"
        "net.requires_grad_(False)\n",
    ],
)
def test_a_loop_that_may_unfreeze_a_name_keeps_no_module_frozen(
    code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not _frozen_at_end(code, monkeypatch)


@pytest.mark.parametrize(
    ("code", "stored"),
    [
        ("model.fc = nn.Linear(2, 2)\nself.head = nn.Linear(2, 2)\n", {"fc"}),
        ("model.backbone.adapter, model.flag = make(), True\n", {"adapter"}),
        ("model.weight = w\nmodel.training = False\n", set()),
        ('model.add_module("fc", nn.Linear(2, 2))\n', None),
        ('setattr(model, "fc", nn.Linear(2, 2))\n', None),
        ("del model.fc\n", None),
    ],
)
def test_children_code_may_give_a_module_from_outside(code: str, stored: set[str] | None) -> None:
    """`model.fc = ...` may replace or add a child `fc` of any module; registration by a
    computed name or a deletion may change any."""
    found = foreign_children(ast.parse(code))
    assert found == (frozenset(stored) if stored is not None else None)


@pytest.mark.parametrize(
    ("code", "frozen"),
    [
        # The head replaced from outside is still `head.`: no name starts with `classifier`.
        ("net.head = nn.Linear(4, 2)\n", True),
        # A child `classifier` may be added to any module: its names may start so.
        ("net.classifier = nn.Linear(4, 2)\n", False),
        # A child may be registered under any name.
        ('setattr(net, "classifier", nn.Linear(4, 2))\n', False),
    ],
)
def test_children_given_from_outside_may_have_their_own_names(
    code: str, frozen: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = (
        "net.requires_grad_(False)\n"
        "for name, p in net.named_parameters():\n"
        '    if name.startswith("classifier"):\n'
        "        p.requires_grad = True\n"
    )
    assert _frozen_at_end(code + loop, monkeypatch) is frozen


CORPUS = sorted((Path(__file__).resolve().parents[1] / "corpus").rglob("*.py"))


@pytest.mark.parametrize("path", CORPUS[::7], ids=lambda p: p.name)
def test_foreign_children_are_the_union_of_each_statements(path: Path) -> None:
    """An edit inside one function is checked on that function's answer alone
    (`incremental._BY_PARTS`): the file's answer is the union of its statements' answers,
    or None when one of them is None."""
    tree = ast.parse(path.read_text())
    parts = [foreign_children(ast.Module([stmt], [])) for stmt in tree.body]
    whole = foreign_children(tree)
    known = [part for part in parts if part is not None]
    assert whole == (None if len(known) < len(parts) else frozenset().union(*known))
