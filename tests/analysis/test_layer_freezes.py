"""Freezes of a model's layers (`model.encoder.requires_grad_(False)`): seen where they are
made, through the helpers and methods that make them, in a run of the model's `forward`,
and, made by `__init__` (also through a method of the class it calls), in every other method
of the class. Also which classes of the file
own every parameter they compute with (a layer template handed to `nn.TransformerEncoder`)
and own parameters at all (a class built only of classes of the file)."""

from __future__ import annotations

import textwrap

import pytest

from gradguard.core.engine import check_source
from gradguard.core.settings import Settings

NET = """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.body(x))
"""

CASES = [
    (
        "a layer frozen, then run alone",
        """
        model = Net()
        model.body.requires_grad_(False)
        model.body(torch.randn(3, 4)).sum().backward()
        """,
        True,
    ),
    (
        "a layer frozen, the next one trains",
        """
        model = Net()
        model.body.requires_grad_(False)
        model.head(model.body(torch.randn(3, 4))).sum().backward()
        """,
        False,
    ),
    (
        "a layer frozen, then replaced by a new one",
        """
        model = Net()
        model.body.requires_grad_(False)
        model.body = nn.Linear(4, 8)
        model.body(torch.randn(3, 4)).sum().backward()
        """,
        False,
    ),
    (
        "both layers frozen by helpers, forward runs them",
        """
        def freeze_body(m):
            for p in m.body.parameters():
                p.requires_grad = False

        def freeze_head(m):
            m.head.requires_grad_(False)

        def main():
            model = Net()
            freeze_body(model)
            freeze_head(model)
            model(torch.randn(3, 4)).sum().backward()
        """,
        True,
    ),
    (
        "one helper freezes under a flag",
        """
        def freeze_head(m, flag):
            if flag:
                m.head.requires_grad_(False)

        def main(flag):
            model = Net()
            model.body.requires_grad_(False)
            freeze_head(model, flag)
            model(torch.randn(3, 4)).sum().backward()
        """,
        False,
    ),
    (
        "only the body frozen, forward runs the head too",
        """
        def main():
            model = Net()
            model.body.requires_grad_(False)
            model(torch.randn(3, 4)).sum().backward()
        """,
        False,
    ),
    (
        "frozen by __init__, run by another method",
        """
        class Trainer:
            def __init__(self):
                self.model = Net()
                self.model.requires_grad_(False)

            def step(self, x):
                self.model(x).sum().backward()

        Trainer().step(torch.randn(3, 4))
        """,
        True,
    ),
    (
        "frozen by __init__ under a flag",
        """
        class Trainer:
            def __init__(self, frozen):
                self.model = Net()
                if frozen:
                    self.model.requires_grad_(False)

            def step(self, x):
                self.model(x).sum().backward()

        Trainer(False).step(torch.randn(3, 4))
        """,
        False,
    ),
    (
        "frozen by __init__, replaced from outside",
        """
        class Trainer:
            def __init__(self):
                self.model = Net()
                self.model.requires_grad_(False)

            def step(self, x):
                self.model(x).sum().backward()

        trainer = Trainer()
        trainer.model = Net()
        trainer.step(torch.randn(3, 4))
        """,
        False,
    ),
    (
        "frozen by __init__ after an early return",
        """
        class Trainer:
            def __init__(self, pretrained):
                self.model = Net()
                if not pretrained:
                    return
                self.model.requires_grad_(False)

            def step(self, x):
                self.model(x).sum().backward()

        Trainer(False).step(torch.randn(3, 4))
        """,
        False,
    ),
    (
        "a class built of classes of the file, frozen whole",
        """
        class Pair(nn.Module):
            def __init__(self):
                super().__init__()
                self.first = Net()
                self.second = Net()

            def forward(self, x):
                return self.first(x) + self.second(x)

        pair = Pair()
        pair.requires_grad_(False)
        pair(torch.randn(3, 4)).sum().backward()
        """,
        True,
    ),
    (
        "an encoder of a layer template built in __init__, frozen whole",
        """
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, batch_first=True)
                self.layers = nn.TransformerEncoder(layer, 2)

            def forward(self, x):
                return self.layers(x)

        encoder = Encoder()
        encoder.requires_grad_(False)
        encoder(torch.randn(2, 3, 4)).sum().backward()
        """,
        True,
    ),
    (
        "a layer template also kept in a plain list, its original run by forward",
        """
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, batch_first=True)
                self.extra = [layer]
                self.layers = nn.TransformerEncoder(layer, 2)

            def forward(self, x):
                return self.layers(x) + self.extra[0](x)

        encoder = Encoder()
        encoder.requires_grad_(False)
        encoder(torch.randn(2, 3, 4)).sum().backward()
        """,
        False,
    ),
    (
        "both layers frozen here, a helper handed the model runs forward",
        """
        def fit(net, batch):
            net(batch).sum().backward()

        def main():
            model = Net()
            model.body.requires_grad_(False)
            model.head.requires_grad_(False)
            fit(model, torch.randn(3, 4))
        """,
        True,
    ),
    (
        "frozen layers reach a helper's helper through a keyword",
        """
        def loss_of(net, batch):
            return net(batch).sum()

        def fit(model, batch):
            loss_of(model, batch).backward()

        def main():
            model = Net()
            model.body.requires_grad_(False)
            model.head.requires_grad_(False)
            fit(batch=torch.randn(3, 4), model=model)
        """,
        True,
    ),
    (
        "one caller of the helper froze the head, the other did not",
        """
        def fit(net, batch):
            net(batch).sum().backward()

        def main():
            model = Net()
            model.body.requires_grad_(False)
            model.head.requires_grad_(False)
            fit(model, torch.randn(3, 4))
            other = Net()
            other.body.requires_grad_(False)
            fit(other, torch.randn(3, 4))
        """,
        False,
    ),
    (
        "the helper rebinds the model it is handed",
        """
        def fit(net, batch):
            net = Net()
            net(batch).sum().backward()

        def main():
            model = Net()
            model.body.requires_grad_(False)
            model.head.requires_grad_(False)
            fit(model, torch.randn(3, 4))
        """,
        False,
    ),
    (
        "the helper gives the model a new head",
        """
        def fit(net, batch):
            net.head = nn.Linear(8, 2)
            net(batch).sum().backward()

        def main():
            model = Net()
            model.body.requires_grad_(False)
            model.head.requires_grad_(False)
            fit(model, torch.randn(3, 4))
        """,
        False,
    ),
    (
        "the layers are frozen only after the helper ran",
        """
        def fit(net, batch):
            net(batch).sum().backward()

        def main():
            model = Net()
            fit(model, torch.randn(3, 4))
            model.body.requires_grad_(False)
            model.head.requires_grad_(False)
        """,
        False,
    ),
    (
        "the frozen model is another argument than the one run",
        """
        def fit(net, teacher, batch):
            net(batch).sum().backward()

        def main():
            model, frozen = Net(), Net()
            frozen.body.requires_grad_(False)
            frozen.head.requires_grad_(False)
            fit(model, frozen, torch.randn(3, 4))
        """,
        False,
    ),
    (
        "init calls a method freezing both layers",
        """
        class Tagger(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Linear(4, 8)
                self.head = nn.Linear(8, 2)
                self.lock()

            def lock(self):
                for p in self.body.parameters():
                    p.requires_grad = False
                self.head.requires_grad_(False)

            def forward(self, x):
                return self.head(self.body(x))

        Tagger()(torch.randn(3, 4)).sum().backward()
        """,
        True,
    ),
    *[
        (
            f"init calls a method freezing layers: {title}",
            f"""
            class Tagger(nn.Module):
                def __init__(self, locked=True):
                    super().__init__()
                    self.body = nn.Linear(4, 8)
                    self.head = nn.Linear(8, 2)
                    {init}

                def lock(self):
                    for p in self.body.parameters():
                        p.requires_grad = False
                    {lock}

                def forward(self, x):
                    return self.head(self.body(x))

            Tagger()(torch.randn(3, 4)).sum().backward()
            """,
            False,
        )
        for title, init, lock in [
            ("only the body", "self.lock()", "pass"),
            (
                "then a new head",
                "self.lock()",
                "self.head.requires_grad_(False)\n                    self.head = nn.Linear(8, 2)",
            ),
            ("under a flag", "if locked: self.lock()", "self.head.requires_grad_(False)"),
            (
                "before the head exists",
                "self.lock()\n                    self.head = nn.Linear(8, 2)",
                "pass",
            ),
            ("not called", "pass", "self.head.requires_grad_(False)"),
        ]
    ],
]


@pytest.mark.parametrize(("title", "code", "found"), CASES, ids=[c[0] for c in CASES])
def test_frozen_layers(title: str, code: str, found: bool) -> None:
    source = NET + textwrap.dedent(code)
    findings = check_source(source, settings=Settings(select=("GG104",))).findings
    assert [f.code for f in findings] == (["GG104"] if found else []), title


def test_classes_keeping_each_other_are_asked_once() -> None:
    """Two classes whose instances keep each other (a child kept by its parent, the parent
    by the child): whether they own parameters ends."""
    source = NET + textwrap.dedent(
        """
        class Child(nn.Module):
            def __init__(self, parent):
                super().__init__()
                self.parent = parent

        class Parent(nn.Module):
            def __init__(self):
                super().__init__()
                self.child = Child(self)

            def forward(self, x):
                return x

        parent = Parent()
        parent.requires_grad_(False)
        parent(torch.randn(3, 4)).sum().backward()
        """
    )
    findings = check_source(source, settings=Settings(select=("GG104",))).findings
    assert list(findings) == []
