"""markovdp: privacy amplification by Markov post-processing — describe, certify, compute, simulate.

THEORY IDs (docs/theory.md) are cited throughout (e.g. BBGG-T1.3, AAC-phi, STD-GaussHS).
"""

from importlib.metadata import PackageNotFoundError, version

from ._random import RNGLike, as_generator, point_key, task_seed
from .distributions import (
    Categorical,
    Distribution,
    Empirical,
    Laplace,
    LaplaceSum,
    MultivariateNormal,
    Normal,
    PointMass,
    as_multivariate_normal,
)
from .divergences import (
    Estimate,
    WeightedEstimate,
    estimate_hockey_stick,
    estimate_hockey_stick_event,
    estimate_hockey_stick_importance,
    estimate_renyi,
    estimate_renyi_density_ratio,
    estimate_renyi_histogram,
    hockey_stick,
    kl,
    laplace_sum_hockey_stick,
    laplace_sum_kl,
    laplace_sum_renyi,
    mahalanobis,
    mvn_kl,
    mvn_renyi,
    renyi,
    tv,
)
from .guarantees import (
    Bound,
    Certificate,
    NoApplicableTheorem,
    NotApplicable,
    certify,
    describe,
    dobrushin,
    doeblin,
    gaussian_shift_rdp,
    iterated_gaussian_rdp,
    iterated_laplace_rdp,
    laplace_shift_rdp,
    ldp_contraction_bound,
    ldp_epsilon,
    lipschitz_chain_opt_rdp,
    lipschitz_chain_rdp,
    lipschitz_gaussian_shift_rdp,
    lipschitz_kernel_rdp,
    lipschitz_path_rdp,
    noisy_sgd_convex_rdp,
    noisy_sgd_opt_rdp,
    noisy_sgd_rdp,
    opt_factor,
    privacy_epsilon,
    privacy_profile,
    rdp_bound,
    rdp_delta_curve,
    rdp_to_dp,
    renyi_profile,
    theorem,
    theorems,
    translation_coupling_point,
    translation_coupling_rdp,
    ultra_mixing,
    unregister,
    worst_pair,
)
from .mechanisms import (
    DeclaredDP,
    DifferingRecord,
    FiniteMechanism,
    GaussianMechanism,
    GradientLoss,
    LaplaceMechanism,
    LogisticLoss,
    Loss,
    Mechanism,
    NoisyProjSGD,
    PostProcessed,
    QuadraticLoss,
    RandomizedResponse,
    SGDDifferingAt,
    exact_sgd_outputs,
    worst_case_mechanism,
)
from .operators import (
    AffineGaussianKernel,
    Ball,
    Box,
    FiniteKernel,
    GaussianKernel,
    GridLaw,
    Identity,
    IncompatibleSpaces,
    LaplaceKernel,
    LipschitzGaussianKernel,
    MarkovOperator,
    Projection,
    ShiftNoise,
    diagonal_map,
    gradient_step_map,
    grid_push,
    is_lipschitz_chain,
    is_lipschitz_everywhere,
    linear_map,
    mixture,
    sample_chain,
    shift_noise,
    tanh_map,
    tensor,
    tensor_power,
)
from .pairs import Pairs, PairSet, RowPairs, ShiftPair
from .pairs_gaussian import GaussianBallPair
from .spaces import FiniteSpace, RealSpace

try:
    __version__ = version("markovdp")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"

__all__ = [
    "AffineGaussianKernel", "Ball", "Bound", "Box", "Categorical", "Certificate", "DeclaredDP", "DifferingRecord",
    "Distribution", "Empirical", "Estimate", "FiniteKernel", "FiniteMechanism", "FiniteSpace", "GaussianBallPair",
    "GaussianKernel", "GaussianMechanism", "GradientLoss", "GridLaw", "Identity", "IncompatibleSpaces", "Laplace",
    "LaplaceKernel", "LaplaceMechanism", "LaplaceSum", "LipschitzGaussianKernel", "LogisticLoss", "Loss",
    "MarkovOperator", "Mechanism", "MultivariateNormal", "NoApplicableTheorem", "NoisyProjSGD", "Normal",
    "NotApplicable", "PairSet", "Pairs", "PointMass", "PostProcessed", "Projection", "QuadraticLoss", "RNGLike",
    "RandomizedResponse", "RealSpace", "RowPairs", "SGDDifferingAt", "ShiftNoise", "ShiftPair", "WeightedEstimate",
    "as_generator", "as_multivariate_normal", "certify", "describe", "diagonal_map", "dobrushin", "doeblin",
    "estimate_hockey_stick", "estimate_hockey_stick_event", "estimate_hockey_stick_importance", "estimate_renyi",
    "estimate_renyi_density_ratio", "estimate_renyi_histogram", "exact_sgd_outputs", "gaussian_shift_rdp",
    "gradient_step_map", "grid_push", "hockey_stick", "is_lipschitz_chain", "is_lipschitz_everywhere",
    "iterated_gaussian_rdp", "iterated_laplace_rdp", "kl", "laplace_shift_rdp", "laplace_sum_hockey_stick",
    "laplace_sum_kl", "laplace_sum_renyi", "ldp_contraction_bound", "ldp_epsilon", "linear_map",
    "lipschitz_chain_opt_rdp", "lipschitz_chain_rdp", "lipschitz_gaussian_shift_rdp", "lipschitz_kernel_rdp",
    "lipschitz_path_rdp", "mahalanobis", "mixture", "mvn_kl", "mvn_renyi", "noisy_sgd_convex_rdp",
    "noisy_sgd_opt_rdp", "noisy_sgd_rdp", "opt_factor", "point_key", "privacy_epsilon", "privacy_profile",
    "rdp_bound", "rdp_delta_curve", "rdp_to_dp", "renyi", "renyi_profile", "sample_chain", "shift_noise",
    "tanh_map", "task_seed", "tensor", "tensor_power", "theorem", "theorems", "translation_coupling_point",
    "translation_coupling_rdp", "tv", "ultra_mixing", "unregister", "worst_case_mechanism", "worst_pair"
]
