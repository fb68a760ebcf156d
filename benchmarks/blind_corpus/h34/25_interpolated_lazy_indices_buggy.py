"""Interpolated lazy matrix (SKI style) and its gradient test.

Modelled on: https://github.com/cornellius-gp/gpytorch/issues/169

The library's test for the interpolated lazy variable builds its sparse
interpolation as index tensors plus weight tensors and, copying the pattern
used for the weights, marks the LongTensor of indices with
``requires_grad=True``. Index tensors are integers and cannot carry gradients,
so the test dies while building its inputs with "Only Tensors of floating
point and complex dtype can require gradients" (it broke once PyTorch started
enforcing this).
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
        left_interp_indices = torch.tensor([[2, 3], [3, 4], [4, 5]], requires_grad=True)  # bug: GG402
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
    if result.errors:
        print("BUGGY:", result.errors[0][1].strip().splitlines()[-1])
    elif result.failures:
        print("failure:", result.failures[0][1])
    else:
        print("no error")
