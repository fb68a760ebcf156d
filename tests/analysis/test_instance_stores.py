"""Stores a method makes into its own instance (`gradguard.analysis.instance_stores`)."""

from __future__ import annotations

import ast

from gradguard.analysis.instance_stores import outside_instances, own_instance_stores

SOURCE = """
class Learner:
    def __init__(self, opts):
        self.lr = opts.lr
        self.cb = lambda: setattr_free(self)
        opts.steps = 3
    def reset(me):
        me.lr = 0.0
        del me.cb
    @staticmethod
    def tweak(self):
        self.lr = 1.0
    def rebinds(self, other):
        self = other
        self.lr = 2.0
def helper(self):
    self.lr = 3.0
"""


def test_only_a_method_s_own_instance_counts() -> None:
    """The first parameter of a method (whatever its name), never re-bound; not a static
    method's, not a plain function's, not another object's (`opts.steps`)."""
    own = own_instance_stores(ast.parse(SOURCE))
    assert own == {"Learner": {"lr": 2, "cb": 2}}


def test_the_rest_may_change_other_objects() -> None:
    stored = {"lr": 5, "cb": 2, "steps": 1}
    assert outside_instances(stored, {"Learner": {"lr": 2, "cb": 2}}) == {"lr": 3, "steps": 1}
