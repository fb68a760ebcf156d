"""Models."""
from .mlp import MLP, make_optimizer
