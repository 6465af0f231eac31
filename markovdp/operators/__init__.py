"""Markov operators and the post-processing algebra (DESIGN §3–5)."""

from .affine_gaussian import AffineGaussianKernel
from .algebra import Chain, Mixture, Power, Tensor, compose, mixture, power, tensor, tensor_power
from .base import IncompatibleSpaces, MarkovOperator
from .finite import FiniteKernel
from .gaussian import GaussianKernel
from .grid_push import GridLaw, ShiftNoise, grid_push, shift_noise
from .identity import Identity
from .laplace import LaplaceKernel
from .projections import Ball, Box, Projection

__all__ = [
    "AffineGaussianKernel", "Ball", "Box", "Chain", "FiniteKernel", "GaussianKernel", "GridLaw", "Identity",
    "IncompatibleSpaces", "LaplaceKernel", "MarkovOperator", "Mixture", "Power", "Projection", "ShiftNoise",
    "Tensor", "compose", "grid_push", "mixture", "power", "shift_noise", "tensor", "tensor_power"
]
