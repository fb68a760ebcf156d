"""Models."""
from .mlp import MLP
