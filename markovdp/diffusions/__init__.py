"""Diffusions (BBGG §5, DESIGN §3–§4): Markov semigroups and their time slices, exact Gaussian transitions, SDEs.

- `Semigroup`, `TimeSlice`; `BrownianSemigroup`, `OrnsteinUhlenbeckSemigroup` (exact affine Gaussian transitions);
  `DiffusionSemigroup` (any time-homogeneous Itô SDE, sampled by integration).
- `SDE`, the solvers `EulerMaruyama` and `Milstein`, and the driver `simulate` (numba; ``backend="sdeint"``).
- `mse`: the mean squared error of the OU mechanism against the Gaussian mechanism (BBGG-MSE, BBGG-T8):
  `ou_mse`, `ou_mse_ratio`, `matched_gaussian_mse`, `matched_gaussian_variance`, `post_processed_gaussian_mse`,
  `post_processed_gaussian_mse_at`, `ou_theorem8_condition`, `ou_theorem8_parameters`, `ou_theorem8_ratio_bound`.
- `GradientDiffusion` (dX = −V'(X) dt + √2 dW with a grid transition density and the BBGG-T6 hooks, `T6_HOOKS`),
  and the closed-form intrinsic sensitivities `brownian_intrinsic_sensitivity`, `ou_intrinsic_sensitivity`.
"""

from .base import T6_HOOKS, Semigroup, TimeSlice
from .brownian import BrownianSemigroup
from .general import DiffusionSemigroup
from .gradient import GradientDiffusion
from .intrinsic_sensitivity import brownian_intrinsic_sensitivity, ou_intrinsic_sensitivity
from .mse import (
    matched_gaussian_mse,
    matched_gaussian_variance,
    ou_mse,
    ou_mse_ratio,
    ou_theorem8_condition,
    ou_theorem8_parameters,
    ou_theorem8_ratio_bound,
    post_processed_gaussian_mse,
    post_processed_gaussian_mse_at,
)
from .ornstein_uhlenbeck import OrnsteinUhlenbeckSemigroup
from .sde import SDE
from .simulate import simulate
from .solvers import EulerMaruyama, Milstein, Solver

__all__ = [
    "T6_HOOKS", "BrownianSemigroup", "DiffusionSemigroup", "GradientDiffusion", "brownian_intrinsic_sensitivity",
    "ou_intrinsic_sensitivity", "EulerMaruyama", "Milstein", "OrnsteinUhlenbeckSemigroup", "SDE",
    "Semigroup", "Solver", "TimeSlice", "matched_gaussian_mse", "matched_gaussian_variance", "ou_mse", "ou_mse_ratio",
    "ou_theorem8_condition", "ou_theorem8_parameters", "ou_theorem8_ratio_bound", "post_processed_gaussian_mse",
    "post_processed_gaussian_mse_at", "simulate",
]
