"""GradGuard: find PyTorch autograd mistakes before they reach run time."""

__version__ = "0.1.0"
