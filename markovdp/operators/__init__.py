"""Markov operators and the post-processing algebra (DESIGN §3–5)."""

from ..spaces import IncompatibleSpaces
from .affine_gaussian import AffineGaussianKernel
from .algebra import Chain, Mixture, Power, Tensor, compose, mixture, power, tensor, tensor_power
from .base import MarkovOperator
from .finite import FiniteKernel
from .gaussian import GaussianKernel
from .grid_push import GridLaw, ShiftNoise, grid_push, shift_noise
from .identity import Identity
from .laplace import LaplaceKernel
from .lipschitz_gaussian import LipschitzGaussianKernel, is_lipschitz_chain, sample_chain
from .maps import diagonal_map, gradient_step_map, is_lipschitz_everywhere, linear_map, tanh_map
from .projections import Ball, Box, Projection

__all__ = [
    "AffineGaussianKernel", "Ball", "Box", "Chain", "FiniteKernel", "GaussianKernel", "GridLaw", "Identity",
    "IncompatibleSpaces", "LaplaceKernel", "LipschitzGaussianKernel", "MarkovOperator", "Mixture", "Power",
    "Projection", "ShiftNoise", "Tensor", "compose", "diagonal_map", "gradient_step_map", "grid_push",
    "is_lipschitz_chain", "is_lipschitz_everywhere", "linear_map", "mixture", "power", "sample_chain",
    "shift_noise", "tanh_map", "tensor", "tensor_power"
]
