"""Interpolated lazy matrix test with integer-looking but float weight literals.

Modelled on: https://github.com/cornellius-gp/gpytorch/issues/169 (counterpart)

Look-alike: ``requires_grad=True`` is passed to tensors written with integer
literals, next to integer index tensors, as in the report. But those tensors
are given ``dtype=torch.float`` (or built with ``torch.arange(...).float()``),
and the index tensors themselves never ask for gradients.
"""
import unittest

import torch


def interp_matrix(indices, values, n_cols):
    w = torch.zeros(indices.size(0), n_cols, dtype=values.dtype)
    return w.scatter_add(1, indices, values)


class InterpolatedLazyMatrix:
    def __init__(self, base, li, lv, ri, rv):
        self.base, self.li, self.lv, self.ri, self.rv = base, li, lv, ri, rv

    def evaluate(self):
        n = self.base.size(0)
        return interp_matrix(self.li, self.lv, n) @ self.base @ interp_matrix(self.ri, self.rv, n).t()


class TestInterpolatedLazyMatrix(unittest.TestCase):
    def test_evaluate_grad(self):
        torch.manual_seed(0)
        base = torch.randn(6, 6).requires_grad_()
        left_interp_indices = torch.tensor([[2, 3], [3, 4], [4, 5]])
        left_interp_values = torch.tensor([[1, 1], [2, 1], [1, 3]], dtype=torch.float, requires_grad=True)
        right_interp_indices = torch.arange(6).view(3, 2)
        right_interp_values = torch.arange(6).view(3, 2).float().requires_grad_()
        lazy = InterpolatedLazyMatrix(base, left_interp_indices, left_interp_values,
                                      right_interp_indices, right_interp_values)
        lazy.evaluate().sum().backward()
        self.assertIsNotNone(left_interp_values.grad)
        self.assertIsNotNone(right_interp_values.grad)


if __name__ == "__main__":
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(TestInterpolatedLazyMatrix).run(result)
    assert not result.errors and not result.failures, result.errors + result.failures
    print("OK")
