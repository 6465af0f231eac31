"""Exact divergences between two laws: hockey-stick E_{e^eps}, TV, KL and Rényi R_alpha.

THEORY: Notation (E_gamma, TV = E_1, KL, R_alpha, D_inf); STD-GaussHS, STD-GaussRenyi, STD-LapHS,
STD-LapRenyi. Each function dispatches on the *pair* of law types (or their kinds, ``"atomic"`` /
``"continuous"``) through `registry` (DESIGN §6) and falls back closed form → finite sum → quadrature:

``"closed_form"``
    Normal/Normal (`gaussian`), MultivariateNormal with Normal or itself (`multivariate_gaussian`),
    Laplace/Laplace (`laplace`), sums of two Laplace variables (`laplace_sum`), shifts of Laplace sums and of
    Gaussian-plus-Laplace laws (`noise_chain`), atomic vs continuous pairs
    (mutually singular).
``"finite_sum"``
    atomic pairs: Categorical, PointMass and Empirical laws (`finite`: exact sums over the union of atoms).
``"quadrature"``
    any two laws on R^1 with ``log_density`` and ``quadrature_hints`` (`quadrature`).

``method=None`` uses the best available method (a closed form that does not cover a case, e.g. the
hockey-stick between Gaussians of different sigmas, falls back to quadrature on R^1);
``method="quadrature"`` forces the fallback so tests can hold each formula against it. A new law joins by
declaring its ``kind`` or registering rules with `register` on its pair of types.
"""

from . import finite, gaussian, laplace, laplace_sum, multivariate_gaussian, noise_chain, quadrature  # noqa: F401
from .finite import hockey_stick_finite, kl_finite, renyi_finite
from .laplace_sum import laplace_sum_hockey_stick, laplace_sum_kl, laplace_sum_renyi
from .multivariate_gaussian import mahalanobis, mvn_kl, mvn_renyi
from .registry import METHODS, NoRule, hockey_stick, kl, register, renyi, tv

__all__ = [
    "METHODS", "NoRule", "hockey_stick", "hockey_stick_finite", "kl", "kl_finite", "laplace_sum_hockey_stick",
    "laplace_sum_kl", "laplace_sum_renyi", "mahalanobis", "mvn_kl", "mvn_renyi", "register", "renyi",
    "renyi_finite", "tv"
]
