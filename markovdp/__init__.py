"""markovdp: privacy amplification by Markov post-processing — describe, certify, compute, simulate.

The top level holds what a researcher types, grouped by theme below. Formula-level helpers live in their
subpackages and are documented there: `markovdp.guarantees` (RDP curves of the theorems, intrinsic
sensitivities, Le Cam bounds, key reuse), `markovdp.divergences` (closed forms), `markovdp.diffusions` (OU
utility), `markovdp.mechanisms.local` (channels, key laws, frequency errors), `markovdp.operators`,
`markovdp.sweeps` and `markovdp.validation`. THEORY IDs (docs/theory.md) are cited throughout (e.g.
BBGG-T1.3, AAC-phi, STD-GaussHS).
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Any

# --- randomness: every sampler takes `rng` (an int, a SeedSequence or a Generator)
from ._random import RNGLike, as_generator

# --- state spaces and laws
from .spaces import FiniteSpace, IncompatibleSpaces, RealSpace
from .distributions import (
    Categorical,
    Distribution,
    Empirical,
    Laplace,
    LaplaceSum,
    LaplaceSumN,
    MultivariateNormal,
    Normal,
    NormalLaplace,
    PointMass,
)

# --- Markov kernels and the post-processing algebra (K1 >> K2, K ** r, mixture, tensor)
from .operators import (
    AffineGaussianKernel,
    Ball,
    Box,
    FiniteKernel,
    GaussianKernel,
    GridLaw,
    Identity,
    LaplaceKernel,
    LipschitzGaussianKernel,
    MarkovOperator,
    Projection,
    diagonal_map,
    gradient_step_map,
    grid_push,
    linear_map,
    mixture,
    sample_chain,
    tanh_map,
    tensor,
    tensor_power,
)

# --- semigroups and SDEs
from .diffusions import (
    SDE,
    BrownianSemigroup,
    DiffusionSemigroup,
    EulerMaruyama,
    Milstein,
    OrnsteinUhlenbeckSemigroup,
    Semigroup,
    Solver,
    TimeSlice,
    simulate,
)

# --- mechanisms (M >> K is a pipeline)
from .mechanisms import (
    DeclaredDP,
    DiffusionMechanism,
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
)

# --- local DP: frequency oracles and randomness-constrained mechanisms
from .mechanisms.local import (
    BinaryHadamard,
    FrequencyOracle,
    HadamardRecoverableMechanism,
    HadamardResponse,
    IdentifiableRecoverableMechanism,
    KeyedMechanism,
    LocalHashing,
    MultiLevelHadamard,
    MultiLevelMechanism,
    RecoverableMechanism,
    SubsetSelection,
    UnaryEncoding,
    ibu_estimate,
    make_oracle,
    oracle_names,
    randomness_bits,
    register_oracle,
    BudgetedHadamard,
)

# --- certificates and exact privacy
from .guarantees import (
    Bound,
    Certificate,
    NoApplicableTheorem,
    NotApplicable,
    calibrate,
    certify,
    describe,
    dobrushin,
    doeblin,
    ldp_epsilon,
    ldp_profile,
    privacy_epsilon,
    privacy_profile,
    renyi_profile,
    theorems,
    ultra_mixing,
    worst_case_mechanism,
    worst_pair,
)
from .divergences import hockey_stick, kl, renyi, tv

# --- what privacy costs a statistician (AAC), randomness budgets (SRP), couplings made visible (BBGG §4)
from .guarantees import (
    PriorFamily,
    bayes_lower_bound,
    bayes_risk,
    bernoulli_bayes_curve,
    coupling_bound,
    hypercube_packing,
    l2_mean_fano_bound,
    ldp_bayes_lower_bound,
    max_mutual_information,
    mean_le_cam,
    optimise_coupling_bound,
    optimise_keyed_mechanism,
    private_fano_bound,
    private_test_tradeoff,
    public_steps_needed,
    randomness_risk_curve,
    synchronous_coupling,
)

# --- Monte Carlo estimators with confidence intervals
from .divergences import (
    Estimate,
    WeightedEstimate,
    estimate_hockey_stick,
    estimate_hockey_stick_event,
    estimate_hockey_stick_importance,
    estimate_renyi,
    estimate_renyi_density_ratio,
    estimate_renyi_histogram,
)

# --- extending markovdp: bases and registries for a new kernel, mechanism, law, rule or divergence
from .divergences.exact.registry import register as register_divergence
from .guarantees import theorem, unregister
from .mechanisms import AllPairs, IndexPairs, L1Ball, L2Ball, MatrixMechanism, Neighbourhood
from .operators.base import MERGES
from .pairs import PUSHES, Pairs, PairSet, RowPairs, ShiftPair
from .pairs_gaussian import GaussianBallPair

try:
    __version__ = version("markovdp")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"

__all__ = [
    # randomness
    "RNGLike", "as_generator",
    # state spaces and laws
    "FiniteSpace", "IncompatibleSpaces", "RealSpace", "Categorical", "Distribution", "Empirical", "Laplace",
    "LaplaceSum", "LaplaceSumN", "MultivariateNormal", "Normal", "NormalLaplace", "PointMass",
    # Markov kernels and the post-processing algebra
    "AffineGaussianKernel", "Ball", "Box", "FiniteKernel", "GaussianKernel", "GridLaw", "Identity", "LaplaceKernel",
    "LipschitzGaussianKernel", "MarkovOperator", "Projection", "diagonal_map", "gradient_step_map", "grid_push",
    "linear_map", "mixture", "sample_chain", "tanh_map", "tensor", "tensor_power",
    # semigroups and SDEs
    "SDE", "BrownianSemigroup", "DiffusionSemigroup", "EulerMaruyama", "Milstein", "OrnsteinUhlenbeckSemigroup",
    "Semigroup", "Solver", "TimeSlice", "simulate",
    # mechanisms
    "DeclaredDP", "DiffusionMechanism", "FiniteMechanism", "GaussianMechanism", "GradientLoss", "LaplaceMechanism",
    "LogisticLoss", "Loss", "Mechanism", "NoisyProjSGD", "PostProcessed", "QuadraticLoss", "RandomizedResponse",
    # local DP: frequency oracles and randomness-constrained mechanisms
    "BinaryHadamard", "BudgetedHadamard", "FrequencyOracle", "HadamardRecoverableMechanism", "HadamardResponse",
    "IdentifiableRecoverableMechanism",
    "KeyedMechanism", "LocalHashing", "MultiLevelHadamard", "MultiLevelMechanism", "RecoverableMechanism",
    "SubsetSelection", "UnaryEncoding", "ibu_estimate", "make_oracle", "oracle_names", "randomness_bits",
    "register_oracle",
    # certificates and exact privacy
    "Bound", "Certificate", "NoApplicableTheorem", "NotApplicable", "calibrate", "certify", "describe", "dobrushin",
    "doeblin", "ldp_epsilon", "ldp_profile", "privacy_epsilon", "privacy_profile", "renyi_profile", "theorems",
    "ultra_mixing", "worst_case_mechanism", "worst_pair", "hockey_stick", "kl", "renyi", "tv",
    # lower bounds, testing and information under local DP; randomness budgets; couplings
    "PriorFamily", "bayes_lower_bound", "bayes_risk", "bernoulli_bayes_curve", "coupling_bound", "hypercube_packing",
    "l2_mean_fano_bound", "ldp_bayes_lower_bound", "max_mutual_information", "mean_le_cam", "optimise_coupling_bound",
    "optimise_keyed_mechanism", "private_fano_bound", "private_test_tradeoff", "public_steps_needed",
    "randomness_risk_curve", "synchronous_coupling",
    # Monte Carlo estimators
    "Estimate", "WeightedEstimate", "estimate_hockey_stick", "estimate_hockey_stick_event",
    "estimate_hockey_stick_importance", "estimate_renyi", "estimate_renyi_density_ratio", "estimate_renyi_histogram",
    # sweeps and validation (loaded on first use: they bring dask and xarray)
    "MissingExtension", "Scenario", "all_scenarios", "get_scenario", "open_executor", "plan_sweep", "run_sweep",
    # extending markovdp
    "AllPairs", "GaussianBallPair", "IndexPairs", "L1Ball", "L2Ball", "MERGES", "MatrixMechanism", "Neighbourhood",
    "PUSHES", "PairSet", "Pairs", "RowPairs", "ShiftPair", "register_divergence", "theorem", "unregister",
]

#: Sweeps and validation at the top level, imported on first use (`import markovdp` stays light).
_LAZY = {
    "Scenario": "markovdp.validation", "all_scenarios": "markovdp.validation", "get_scenario": "markovdp.validation",
    "MissingExtension": "markovdp.sweeps", "open_executor": "markovdp.sweeps",
    "plan_sweep": "markovdp.sweeps", "run_sweep": "markovdp.sweeps",
}
_LAZY_MODULES = ("cli", "interop", "report", "sweeps", "validation")

#: Names that left the top level in 0.2 (issue 13 §2), with their home: they still work for one release, with a
#: DeprecationWarning that names the new place.
_MOVED = {
    **dict.fromkeys((
        "BernoulliLeCam", "KeyReuse", "bernoulli_rr_le_cam", "brownian_intrinsic_sensitivity", "compare_key_reuse",
        "coordinate_carre_du_champ", "default_y_bounds", "gaussian_shift_rdp", "integrate_kappa", "intrinsic_kappa",
        "intrinsic_sensitivity_with_error", "iterated_gaussian_rdp", "iterated_laplace_rdp", "laplace_shift_rdp",
        "ldp_contraction_bound", "le_cam_bound", "lipschitz_chain_opt_rdp", "lipschitz_chain_rdp",
        "lipschitz_gaussian_shift_rdp", "lipschitz_kernel_rdp", "lipschitz_path_rdp", "noisy_sgd_convex_rdp",
        "noisy_sgd_opt_rdp", "noisy_sgd_rdp", "numerical_intrinsic_sensitivity", "opt_factor",
        "ou_intrinsic_sensitivity", "product_tv", "rdp_bound", "rdp_delta_curve", "rdp_to_dp",
        "semigroup_intrinsic_sensitivity", "semigroup_log_density", "semigroup_log_ratio_gradient",
        "translation_coupling_point", "translation_coupling_rdp"), "markovdp.guarantees"),
    **dict.fromkeys(("laplace_sum_hockey_stick", "laplace_sum_kl", "laplace_sum_renyi", "mahalanobis", "mvn_kl",
                     "mvn_renyi"), "markovdp.divergences"),
    **dict.fromkeys(("matched_gaussian_mse", "matched_gaussian_variance", "ou_mse", "ou_mse_ratio",
                     "ou_theorem8_condition", "ou_theorem8_parameters", "ou_theorem8_ratio_bound",
                     "post_processed_gaussian_mse", "post_processed_gaussian_mse_at"), "markovdp.diffusions"),
    **dict.fromkeys(("DifferingRecord", "SGDDifferingAt", "exact_sgd_outputs"), "markovdp.mechanisms"),
    **dict.fromkeys((
        "SubsetChannel", "UnaryChannel", "added_key_law", "binary_entropy", "circulant", "draw_keys",
        "empirical_frequencies", "entropy_bits", "l1_error", "l2_squared_error", "linf_error",
        "min_recoverable_randomness", "min_recoverable_s", "output_entropy_bits", "per_sample_epsilon",
        "project_simplex", "q_min", "rr_key_law", "sequence_channel"), "markovdp.mechanisms.local"),
    **dict.fromkeys(("ShiftNoise", "is_lipschitz_chain", "is_lipschitz_everywhere", "shift_noise"),
                    "markovdp.operators"),
    "as_multivariate_normal": "markovdp.distributions",
    **dict.fromkeys(("point_key", "task_seed"), "markovdp.sweeps"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    if name in _LAZY_MODULES:
        return import_module(f"{__name__}.{name}")
    if name in _MOVED:
        import warnings

        warnings.warn(f"`markovdp.{name}` moved to `{_MOVED[name]}.{name}`; the top-level name goes in the next "
                      f"release.", DeprecationWarning, stacklevel=2)
        return getattr(import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'markovdp' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
