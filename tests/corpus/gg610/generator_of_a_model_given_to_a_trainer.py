"""A trainer class is given its model and walks `self.model.parameters()` twice (GG610).

`Finetuner.__init__(self, model, lr)` stores the model it is handed (`self.model = model`);
the file builds a `Finetuner` once, with a new `Classifier`, so the attribute certainly
holds a torch module and `self.model.parameters()` is torch's one-shot generator.
`build_optimizer` binds it to `trainable`, counts the elements with a generator expression,
and hands the same name to `torch.optim.AdamW`: the count used it up, and the optimizer
raises "optimizer got an empty parameter list". `Distiller` does the same by keyword
(`Distiller(student=..., teacher=...)`) and clips an exhausted generator on every step.

Look-alikes: a class built only with a module whose `parameters()` returns a list; a class
given a `Classifier` whose `__init__` re-binds the parameter before storing it; a class
handed to a factory (`make = Wrapper`), so some construction is not seen; a class
subclassed in the file. All of them hold a `ListedNet` at run time and work.

Modelled on huggingface/transformers#6166, where a generator of `model.parameters()`
bound once is given to the optimizer after another pass had used it up
(https://github.com/huggingface/transformers/issues/6166), and on the trainer classes of
training scripts that keep the model handed to their constructor.
"""

import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))

    def forward(self, x):
        return self.body(x)


class ListedNet(nn.Module):
    """A module whose `parameters()` is a list: reading it twice is fine."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)

    def parameters(self, recurse=True):
        return list(super().parameters(recurse))


class Finetuner:
    def __init__(self, model, lr):
        self.model = model
        self.lr = lr

    def build_optimizer(self):
        trainable = self.model.parameters()
        print("trainable elements:", sum(p.numel() for p in trainable))
        return torch.optim.AdamW(trainable, lr=self.lr)  # expect: GG610


class Distiller:
    def __init__(self, student, teacher):
        self.student = student
        self.teacher = teacher.eval()

    def step(self, x, optimizer):
        grads = self.student.parameters()
        optimizer.zero_grad()
        loss = (self.student(x) - self.teacher(x).detach()).pow(2).mean() * 1e4
        loss.backward()
        torch.nn.utils.clip_grad_norm_(grads, 0.1)
        norm = torch.nn.utils.clip_grad_norm_(grads, 0.1)  # expect: GG610
        optimizer.step()
        return float(norm)


class Mixed:
    def __init__(self, model):
        self.net = model

    def count_twice(self):
        ps = self.net.parameters()
        return len(list(ps)) + len(list(ps))


class Defaulted:
    def __init__(self, model):
        model = ListedNet()
        self.backbone = model

    def count_twice(self):
        ps = self.backbone.parameters()
        return len(list(ps)) + len(list(ps))


class Wrapper:
    def __init__(self, model):
        self.inner = model

    def count_twice(self):
        ps = self.inner.parameters()
        return len(list(ps)) + len(list(ps))


class Base:
    def __init__(self, model):
        self.core = model

    def count_twice(self):
        ps = self.core.parameters()
        return len(list(ps)) + len(list(ps))


class Child(Base):
    pass


def main():
    torch.manual_seed(0)
    try:
        Finetuner(Classifier(), 1e-3).build_optimizer()
    except ValueError as error:
        assert "empty parameter list" in str(error), error
    else:
        raise AssertionError("the optimizer was built from an exhausted generator")

    student = Classifier()
    distiller = Distiller(student=student, teacher=Classifier())
    optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
    norm = distiller.step(torch.randn(8, 6), optimizer)
    assert norm == 0.0, norm  # the second clip saw nothing

    listed = ListedNet()
    assert Mixed(listed).count_twice() == 4
    assert Mixed(ListedNet()).count_twice() == 4
    assert Defaulted(Classifier()).count_twice() == 4
    make = Wrapper
    assert make(ListedNet()).count_twice() == 4
    assert Base(ListedNet()).count_twice() == 4
    assert Child(ListedNet()).count_twice() == 4
    print("ok: the trainer's generators were exhausted; the look-alikes iterate twice")


if __name__ == "__main__":
    main()
