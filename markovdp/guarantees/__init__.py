"""Guarantees: exact privacy, coefficients, certified bounds and the theorem registry (the interpreting layer).

What a researcher types is re-exported at the top level (`certify`, `calibrate`, `privacy_profile`, `privacy_epsilon`,
`renyi_profile`, `worst_pair`, `worst_case_mechanism`, `dobrushin`, `doeblin`, `ultra_mixing`, `ldp_epsilon`,
`ldp_profile`, `theorem`, `theorems`, `describe`). The formula-level helpers live here:

- RDP curves of the theorems, in nats: `gaussian_shift_rdp`, `laplace_shift_rdp`, `lipschitz_gaussian_shift_rdp`,
  `translation_coupling_point`, `translation_coupling_rdp`, `iterated_gaussian_rdp`, `iterated_laplace_rdp`,
  `lipschitz_kernel_rdp` (BBGG-T2, E1–E3); `lipschitz_path_rdp`, `lipschitz_chain_rdp`, `lipschitz_chain_opt_rdp`,
  `opt_factor` (BBGG-T4, T4opt); `noisy_sgd_rdp`, `noisy_sgd_convex_rdp`, `noisy_sgd_opt_rdp` (BBGG-T5, T5opt).
- BBGG-T2 with any omega and coupling on a finite space (BBGG-T2-finite): `coupling_bound`,
  `optimise_coupling_bound`, `OptimisedCoupling`.
- conversions: `rdp_to_dp` (STD-RDP2DP), `rdp_delta_curve` and `rdp_bound` (an RDP curve as a `Bound`).
- the intrinsic sensitivity of a diffusion mechanism (BBGG-T6): `brownian_intrinsic_sensitivity`,
  `ou_intrinsic_sensitivity` (closed forms), `numerical_intrinsic_sensitivity`,
  `intrinsic_sensitivity_with_error`, `semigroup_intrinsic_sensitivity`, `intrinsic_kappa`, `integrate_kappa`,
  `coordinate_carre_du_champ`, `semigroup_log_density`, `semigroup_log_ratio_gradient`, `default_y_bounds`.
- local DP and estimation: `ldp_contraction_bound` (AAC-phi), `le_cam_bound`, `product_tv`,
  `bernoulli_rr_le_cam`, `BernoulliLeCam` (AAC-LeCam); `private_test_tradeoff`, `PrivateTestTradeoff` (AAC-Test);
  `max_mutual_information`, `MaxMutualInformation` (AAC-MI); `bayes_risk`, `bayes_lower_bound`,
  `ldp_bayes_lower_bound`, `ldp_e_gamma`, `ldp_tv_coefficient`, `bernoulli_bayes_curve`, `bernoulli_crossing_eps`,
  `canonical_ldp_channel` (AAC-Bayes); `private_fano_bound`, `PriorFamily`, `FanoBound`,
  `fano_error_bound`, the hypercube packing `hypercube_packing`, `check_packing`, `PackingCheck`, `packing_size`, and
  `l2_mean_fano_bound`, `L2MeanFano` (AAC-Fano); `mean_le_cam`, `MeanLeCam` (AAC-LeCam-mean); key reuse and
  multi-level privacy: `compare_key_reuse`,
  `KeyReuse`, `multilevel_exact_epsilons`, `multilevel_predicted_epsilon` (SRP-Seq, SRP-ML).
- the maxima over dominating pairs and their registries: `pair_maxima` (DESIGN §4).
- couplings made visible: `synchronous_coupling` (two copies on shared noise, their distance per step or time);
  public steps after NoisyProjSGD: `public_steps_needed` (BBGG-PublicSteps).
"""

# The built-in rules, in their documented order (registry.py): MECH, POST, then BBGG-T1.1 … T1.4, then
# BBGG-E1, BBGG-E2, BBGG-E2r, BBGG-E3, BBGG-T4, BBGG-T4opt, BBGG-T5, BBGG-T5opt, then BBGG-BM, BBGG-T6, BBGG-C7,
# then EXACT (STD-Exact; last, so a theorem that attains the exact value wins the tie).
from . import (
    bbgg,  # noqa: E402, F401
    coupling_rules,  # noqa: E402, F401, I001
    diffusion_rules,  # noqa: E402, F401, I001
    exact_rule,  # noqa: E402, F401, I001  (it imports the other rule modules first: EXACT is registered last)
    mechanism_rules,  # noqa: E402, F401, I001
)
from .aac import ldp_contraction_bound, ldp_profile
from .bayes import (
    BayesLowerBound,
    BayesRisk,
    bayes_lower_bound,
    bayes_risk,
    ldp_bayes_lower_bound,
    ldp_e_gamma,
    ldp_tv_coefficient,
)
from .bayes_bernoulli import BernoulliBayesCurve, bernoulli_bayes_curve, bernoulli_crossing_eps, canonical_ldp_channel
from .calibrate import calibrate
from .coefficients import dobrushin, doeblin, ldp_epsilon, ultra_mixing
from .conversions import rdp_to_dp
from .coupling import (
    gaussian_shift_rdp,
    iterated_gaussian_rdp,
    iterated_laplace_rdp,
    laplace_shift_rdp,
    lipschitz_gaussian_shift_rdp,
    lipschitz_kernel_rdp,
    translation_coupling_point,
    translation_coupling_rdp,
)
from .coupling_finite import coupling_bound
from .coupling_finite_search import OptimisedCoupling, optimise_coupling_bound
from .exact import privacy_epsilon, privacy_profile, renyi_profile, worst_pair
from .fano import FanoBound, PriorFamily, fano_error_bound, private_fano_bound
from .intrinsic_sensitivity import (
    brownian_intrinsic_sensitivity,
    coordinate_carre_du_champ,
    default_y_bounds,
    integrate_kappa,
    intrinsic_kappa,
    intrinsic_sensitivity_with_error,
    numerical_intrinsic_sensitivity,
    ou_intrinsic_sensitivity,
    semigroup_intrinsic_sensitivity,
    semigroup_log_density,
    semigroup_log_ratio_gradient,
)
from .iteration import (
    lipschitz_chain_opt_rdp,
    lipschitz_chain_rdp,
    lipschitz_path_rdp,
    noisy_sgd_convex_rdp,
    noisy_sgd_opt_rdp,
    noisy_sgd_rdp,
    opt_factor,
)
from .keyed_search import KeyedSearch, linear_unbiased_risk, optimise_keyed_mechanism
from .le_cam import BernoulliLeCam, bernoulli_rr_le_cam, le_cam_bound, product_tv
from .mean_estimation import L2MeanFano, MeanLeCam, l2_mean_fano_bound, mean_le_cam
from .mutual_information import MaxMutualInformation, max_mutual_information
from .packing import PackingCheck, check_packing, hypercube_packing, packing_size
from .public_steps import public_steps_needed
from .rdp_curves import rdp_bound, rdp_delta_curve
from .registry import certify, describe, registered_theorems, theorem, theorems, unregister
from .srp import KeyReuse, compare_key_reuse, multilevel_exact_epsilons, multilevel_predicted_epsilon
from .srp_r import randomness_risk_curve
from .synchronous_coupling import synchronous_coupling
from .testing import PrivateTestTradeoff, private_test_tradeoff
from .types import Bound, Certificate, NoApplicableTheorem, NotApplicable
from .worst_case import worst_case_mechanism

__all__ = [
    "BernoulliLeCam", "Bound", "KeyReuse", "compare_key_reuse", "multilevel_exact_epsilons",
    "multilevel_predicted_epsilon", "Certificate", "NoApplicableTheorem", "NotApplicable", "bernoulli_rr_le_cam",
    "brownian_intrinsic_sensitivity", "calibrate", "certify", "coordinate_carre_du_champ", "default_y_bounds",
    "describe",
    "KeyedSearch", "linear_unbiased_risk", "optimise_keyed_mechanism", "randomness_risk_curve",
    "dobrushin", "doeblin", "gaussian_shift_rdp", "integrate_kappa", "intrinsic_kappa",
    "intrinsic_sensitivity_with_error", "iterated_gaussian_rdp", "iterated_laplace_rdp", "laplace_shift_rdp",
    "ldp_contraction_bound", "ldp_epsilon", "ldp_profile", "le_cam_bound", "lipschitz_chain_opt_rdp",
    "lipschitz_chain_rdp", "lipschitz_gaussian_shift_rdp", "lipschitz_kernel_rdp", "lipschitz_path_rdp",
    "noisy_sgd_convex_rdp", "noisy_sgd_opt_rdp", "noisy_sgd_rdp", "numerical_intrinsic_sensitivity", "opt_factor",
    "ou_intrinsic_sensitivity", "privacy_epsilon", "privacy_profile", "product_tv", "rdp_bound", "rdp_delta_curve",
    "rdp_to_dp", "registered_theorems", "renyi_profile", "semigroup_intrinsic_sensitivity", "semigroup_log_density",
    "semigroup_log_ratio_gradient", "theorem", "theorems", "translation_coupling_point", "translation_coupling_rdp",
    "ultra_mixing", "unregister", "worst_case_mechanism", "worst_pair",
    "MaxMutualInformation", "PrivateTestTradeoff", "max_mutual_information", "private_test_tradeoff",
    "BayesLowerBound", "BayesRisk", "BernoulliBayesCurve", "bayes_lower_bound", "bayes_risk", "bernoulli_bayes_curve",
    "bernoulli_crossing_eps", "canonical_ldp_channel", "ldp_bayes_lower_bound", "ldp_e_gamma", "ldp_tv_coefficient",
    # AAC-Fano, AAC-LeCam-mean
    "FanoBound", "L2MeanFano", "MeanLeCam", "PackingCheck", "PriorFamily", "check_packing", "fano_error_bound",
    "hypercube_packing", "l2_mean_fano_bound", "mean_le_cam", "packing_size", "private_fano_bound",
    "public_steps_needed", "synchronous_coupling",
    "coupling_bound", "optimise_coupling_bound", "OptimisedCoupling",
]
