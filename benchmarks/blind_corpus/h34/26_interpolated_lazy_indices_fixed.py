"""Interpolated lazy matrix (SKI style) and its gradient test.

Modelled on: https://github.com/cornellius-gp/gpytorch/issues/169

Fixed version (as agreed in the issue): only the interpolation VALUES require
grad; the integer index tensors are plain LongTensors.
"""
import unittest

import torch


def interp_matrix(indices, values, n_cols):
    """Dense (rows x n_cols) interpolation matrix from (rows x k) indices/values."""
    w = torch.zeros(indices.size(0), n_cols, dtype=values.dtype)
    return w.scatter_add(1, indices, values)


class InterpolatedLazyMatrix:
    def __init__(self, base, left_interp_indices, left_interp_values,
                 right_interp_indices, right_interp_values):
        self.base = base
        self.left_interp_indices = left_interp_indices
        self.left_interp_values = left_interp_values
        self.right_interp_indices = right_interp_indices
        self.right_interp_values = right_interp_values

    def evaluate(self):
        n = self.base.size(0)
        w_left = interp_matrix(self.left_interp_indices, self.left_interp_values, n)
        w_right = interp_matrix(self.right_interp_indices, self.right_interp_values, n)
        return w_left @ self.base @ w_right.t()

    def matmul(self, rhs):
        n = self.base.size(0)
        w_right = interp_matrix(self.right_interp_indices, self.right_interp_values, n)
        w_left = interp_matrix(self.left_interp_indices, self.left_interp_values, n)
        return w_left @ (self.base @ (w_right.t() @ rhs))


def make_base(n):
    a = torch.randn(n, n)
    return (a @ a.t() + n * torch.eye(n)).requires_grad_()


class TestInterpolatedLazyMatrix(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.base = make_base(6)

    def test_matmul(self):
        left_interp_indices = torch.tensor([[2, 3], [3, 4], [4, 5]])
        left_interp_values = torch.tensor([[1.0, 1.0], [0.5, 1.0], [1.0, 3.0]], requires_grad=True)
        right_interp_indices = torch.tensor([[0, 1], [1, 2], [2, 3]])
        right_interp_values = torch.tensor([[1.0, 2.0], [2.0, 0.5], [1.0, 3.0]], requires_grad=True)
        lazy = InterpolatedLazyMatrix(self.base, left_interp_indices, left_interp_values,
                                      right_interp_indices, right_interp_values)
        rhs = torch.randn(3, 4)
        res = lazy.matmul(rhs)
        actual = lazy.evaluate() @ rhs
        self.assertTrue(torch.allclose(res, actual, atol=1e-4))
        res.sum().backward()
        self.assertIsNotNone(left_interp_values.grad)
        self.assertIsNotNone(self.base.grad)


def run_tests():
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(TestInterpolatedLazyMatrix)
    result = unittest.TestResult()
    suite.run(result)
    return result


if __name__ == "__main__":
    result = run_tests()
    if result.errors or result.failures:
        print("FIXED broke:", (result.errors + result.failures)[0][1])
    else:
        print("FIXED: ok")
