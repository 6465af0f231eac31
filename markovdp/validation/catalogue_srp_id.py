"""The scenarios of SRP-Rec-ID and SRP-ML-HR that `markovdp validate` runs.

- SRP-Rec-ID: the recoverable mechanism with an invertible public channel against its declared eps (DeclaredDP;
  the exact profile of its channel and a Monte Carlo of the worst pair of rows), with the smallest singular
  value, the randomness against `min_recoverable_randomness` and the stated factor, and the key holder's exact
  failure probability (0) beside.
- SRP-ML-HR: each analyst's view of the multi-level Hadamard scheme against its declared eps_j, with the exact
  eps, the l2² risk of its estimate against Hadamard response's and today's k-RR view's at the same eps, and the
  randomness against d independent binary Hadamard releases beside.
- SRP-Rec-HR: the recoverable mechanism with an XOR key on a bent set against its declared eps, with its smallest
  singular value (closed form and SVD), the public analyst's l2² risk against Hadamard response's and
  IdentifiableRecoverableMechanism's, the randomness against `min_recoverable_randomness`, and the key holder's
  exact failure probability (0) beside.

Factories are module-level functions so scenarios pickle to dask workers.
"""

from __future__ import annotations

import numpy as np

from ..guarantees.coefficients import ldp_epsilon
from ..mechanisms.declared import DeclaredDP
from ..mechanisms.finite import FiniteMechanism
from ..mechanisms.local.hadamard import HadamardResponse
from ..mechanisms.local.multilevel import MultiLevelMechanism
from ..mechanisms.local.multilevel_hadamard import MultiLevelHadamard
from ..mechanisms.local.recoverable_hadamard import HadamardRecoverableMechanism
from ..mechanisms.local.recoverable_id import IdentifiableRecoverableMechanism, recoverable_factor_bound
from .catalogue import tightness
from .catalogue_local import exact_recovery_failure
from .scenario import Scenario, ScenarioVariable

COORDINATES = {
    "eps": ("privacy level eps", "nats"),
    "eps0": ("declared privacy level of the mechanism", "nats"),
    "k": ("alphabet size", "1"),
    "eps_top": ("privacy level eps_1 of the first analyst (levels eps_1, eps_1/2, eps_1/4)", "nats"),
    "level": ("analyst j whose view is checked", "1"),
}


# ------------------------------------------------------------------------------------ SRP-Rec-ID
def identifiable(k: int, eps0: float) -> IdentifiableRecoverableMechanism:
    return IdentifiableRecoverableMechanism(int(k), float(eps0))


def identifiable_claim(k: int, eps0: float, eps: float) -> DeclaredDP:
    return DeclaredDP(float(eps0), 0.0)


def identifiable_public_view(k: int, eps0: float, eps: float) -> IdentifiableRecoverableMechanism:
    return identifiable(k, eps0)


def identifiable_recovery_failure(point: dict, values: dict) -> float:
    return exact_recovery_failure(identifiable(point["k"], point["eps0"]))


def identifiable_sigma_min(point: dict, values: dict) -> float:
    return identifiable(point["k"], point["eps0"]).smallest_singular_value


def identifiable_svd_sigma_min(point: dict, values: dict) -> float:
    return float(np.linalg.svd(identifiable(point["k"], point["eps0"]).matrix, compute_uv=False).min())


def identifiable_bits(point: dict, values: dict) -> float:
    return identifiable(point["k"], point["eps0"]).randomness_bits


def identifiable_min_bits(point: dict, values: dict) -> float:
    return identifiable(point["k"], point["eps0"]).min_randomness_bits


def identifiable_ratio(point: dict, values: dict) -> float:
    return identifiable(point["k"], point["eps0"]).randomness_ratio


def identifiable_factor(point: dict, values: dict) -> float:
    return recoverable_factor_bound(int(point["k"]))


def identifiable_certified_eps(point: dict, values: dict) -> float:
    return ldp_epsilon(identifiable(point["k"], point["eps0"]))


def identifiable_s(point: dict, values: dict) -> float:
    return float(identifiable(point["k"], point["eps0"]).s)


SRP_REC_ID = Scenario(
    name="SRP-Rec-ID",
    theory_id="SRP-Rec-ID",
    description="Private recoverability with an invertible public channel: the key holder recovers X exactly, the "
                "public view is eps-LDP (against the declared eps) and identifiable (smallest singular value > 0), "
                "with randomness within the stated factor of min_s H(q_min^s).",
    grid_full={"k": (3, 4, 6, 8, 16), "eps0": (0.5, 1.0, 2.0, 5.0), "eps": (0.0, 0.25, 0.5, 1.0, 2.0, 5.0)},
    grid_quick={"k": (4, 8), "eps0": (0.5, 2.0), "eps": (0.0, 0.5, 2.0)},  # eps = eps0: delta must be 0
    pipeline=identifiable_claim,
    witness=identifiable_public_view,
    coordinates=COORDINATES,
    variables={
        "certified_eps": ScenarioVariable("exact eps of the public channel (ldp_epsilon, <= eps0)", "nats",
                                          identifiable_certified_eps),
        "sigma_min": ScenarioVariable("smallest singular value of the public channel (closed form)", "1",
                                      identifiable_sigma_min),
        "sigma_min_svd": ScenarioVariable("smallest singular value of the public channel (numpy SVD)", "1",
                                          identifiable_svd_sigma_min),
        "recovery_failure": ScenarioVariable("probability that the key holder does not recover X (exact)", "1",
                                             identifiable_recovery_failure),
        "randomness_bits": ScenarioVariable("key entropy H(q_min^s), s coprime to k", "bit", identifiable_bits),
        "min_randomness_bits": ScenarioVariable("min_s H(q_min^s): the least randomness", "bit",
                                                identifiable_min_bits),
        "randomness_ratio": ScenarioVariable("randomness / least randomness", "1", identifiable_ratio),
        "factor_bound": ScenarioVariable("the stated factor recoverable_factor_bound(k)", "1", identifiable_factor),
        "s": ScenarioVariable("the number of heavy keys (coprime to k)", "1", identifiable_s),
        "tightness": ScenarioVariable("tightness ratio exact / bound", "1", tightness),
    },
)


# ------------------------------------------------------------------------------------ SRP-ML-HR
def _levels(eps_top: float) -> tuple[float, float, float]:
    return (float(eps_top), float(eps_top) / 2, float(eps_top) / 4)


def multilevel_hadamard(eps_top: float, k: int) -> MultiLevelHadamard:
    """The three-level scheme with levels (eps_1, eps_1/2, eps_1/4)."""
    return MultiLevelHadamard(_levels(eps_top), k=int(k))


def level_claim(eps_top: float, k: int, level: int, eps: float) -> DeclaredDP:
    return DeclaredDP(_levels(eps_top)[int(level) - 1], 0.0)


def level_view(eps_top: float, k: int, level: int, eps: float) -> FiniteMechanism:
    return multilevel_hadamard(eps_top, k).view(int(level))


def level_target_eps(point: dict, values: dict) -> float:
    return _levels(point["eps_top"])[int(point["level"]) - 1]


def level_exact_eps(point: dict, values: dict) -> float:
    return ldp_epsilon(level_view(point["eps_top"], point["k"], point["level"], 0.0))


def _uniform(k: int) -> np.ndarray:
    return np.full(int(k), 1.0 / int(k))


def level_risk(point: dict, values: dict) -> float:
    """n · E||f̂ − p||² of the level's estimate at the uniform p (exact)."""
    return multilevel_hadamard(point["eps_top"], point["k"]).l2_risk(int(point["level"]), _uniform(point["k"]), 1)


def _linear_risk(matrix: np.ndarray, weights: np.ndarray, p: np.ndarray) -> float:
    mu = p @ matrix
    return float(((mu @ weights**2) - (mu @ weights) ** 2).sum())


def hadamard_response_risk(point: dict, values: dict) -> float:
    """n · E||f̂ − p||² of HadamardResponse(k, eps_j)'s estimate at the uniform p, from its channel and its
    estimator's weights H[x + 1, y] / tanh(eps_j/2)."""
    from scipy.linalg import hadamard

    k, eps = int(point["k"]), level_target_eps(point, values)
    oracle = HadamardResponse(k, eps)
    weights = hadamard(oracle.hadamard_order)[1:k + 1].T / np.tanh(eps / 2)
    return _linear_risk(oracle.matrix, weights, _uniform(k))


def today_risk(point: dict, values: dict) -> float:
    """n · E||f̂ − p||² of the unbiased estimate from today's MultiLevelMechanism view (k-RR), uniform p."""
    view = MultiLevelMechanism(_levels(point["eps_top"]), k=int(point["k"])).view(int(point["level"])).matrix
    return _linear_risk(view, np.linalg.inv(view), _uniform(point["k"]))


def level_bits(point: dict, values: dict) -> float:
    return multilevel_hadamard(point["eps_top"], point["k"]).randomness_bits


def level_trivial_bits(point: dict, values: dict) -> float:
    return multilevel_hadamard(point["eps_top"], point["k"]).trivial_randomness_bits


SRP_ML_HR = Scenario(
    name="SRP-ML-HR",
    theory_id="SRP-ML-HR",
    description="Multi-level privacy with binary-Hadamard views: analyst j's view against its declared eps_j, its "
                "estimate's l2² risk against Hadamard response and today's k-RR view, and the randomness against "
                "independent binary Hadamard releases.",
    grid_full={"eps_top": (1.0, 2.0, 4.0), "k": (4, 16), "level": (1, 2, 3), "eps": (0.0, 0.25, 0.5, 1.0, 2.0)},
    grid_quick={"eps_top": (2.0,), "k": (16,), "level": (1, 3), "eps": (0.0, 0.5, 2.0)},
    pipeline=level_claim,
    witness=level_view,
    coordinates=COORDINATES,
    variables={
        "target_eps": ScenarioVariable("target eps_j of analyst j", "nats", level_target_eps),
        "exact_eps": ScenarioVariable("exact eps of analyst j's view (ldp_epsilon, <= eps_j)", "nats",
                                      level_exact_eps),
        "risk": ScenarioVariable("n · l2² risk of analyst j's estimate, uniform p (exact)", "1", level_risk),
        "hr_risk": ScenarioVariable("n · l2² risk of HadamardResponse(k, eps_j), uniform p", "1",
                                    hadamard_response_risk),
        "today_risk": ScenarioVariable("n · l2² risk of MultiLevelMechanism's view j (k-RR), uniform p", "1",
                                       today_risk),
        "randomness_bits": ScenarioVariable("private random bits per user of the scheme", "bit", level_bits),
        "trivial_randomness_bits": ScenarioVariable("private random bits of independent BH releases", "bit",
                                                    level_trivial_bits),
        "tightness": ScenarioVariable("tightness ratio exact / bound", "1", tightness),
    },
)


# ------------------------------------------------------------------------------------ SRP-Rec-HR
def bent(k: int, eps0: float) -> HadamardRecoverableMechanism:
    return HadamardRecoverableMechanism(int(k), float(eps0))


def bent_public_view(k: int, eps0: float, eps: float) -> HadamardRecoverableMechanism:
    return bent(k, eps0)


def bent_recovery_failure(point: dict, values: dict) -> float:
    return exact_recovery_failure(bent(point["k"], point["eps0"]))


def bent_sigma_min(point: dict, values: dict) -> float:
    return bent(point["k"], point["eps0"]).smallest_singular_value


def bent_svd_sigma_min(point: dict, values: dict) -> float:
    return float(np.linalg.svd(bent(point["k"], point["eps0"]).matrix, compute_uv=False).min())


def bent_certified_eps(point: dict, values: dict) -> float:
    return ldp_epsilon(bent(point["k"], point["eps0"]))


def bent_bits(point: dict, values: dict) -> float:
    return bent(point["k"], point["eps0"]).randomness_bits


def bent_ratio(point: dict, values: dict) -> float:
    return bent(point["k"], point["eps0"]).randomness_ratio


def bent_risk(point: dict, values: dict) -> float:
    """n · E||p̂ − p||² of the public analyst's estimate at the uniform p (exact)."""
    return bent(point["k"], point["eps0"]).l2_risk(_uniform(point["k"]), 1)


def bent_hr_risk(point: dict, values: dict) -> float:
    """n · risk of HadamardResponse(k, eps0) at the uniform p (its channel, weights H[x + 1, y]/tanh(eps0/2))."""
    return hadamard_response_risk({"eps_top": point["eps0"], "level": 1, "k": point["k"]}, values)


def bent_id_risk(point: dict, values: dict) -> float:
    """n · risk of IdentifiableRecoverableMechanism(k, eps0)'s public estimate at the uniform p (exact)."""
    return identifiable(point["k"], point["eps0"]).l2_risk(_uniform(point["k"]), 1)


SRP_REC_HR = Scenario(
    name="SRP-Rec-HR",
    theory_id="SRP-Rec-HR",
    description="Private recoverability with a Hadamard-order public channel (XOR key, two-level law on a bent "
                "set): the key holder recovers X exactly, the public view is eps-LDP (against the declared eps) "
                "with a flat spectrum, its estimate's risk beside Hadamard response's and the coprime-s key's.",
    grid_full={"k": (3, 5, 16, 64, 256), "eps0": (0.5, 1.0, 2.0, 5.0), "eps": (0.0, 0.25, 0.5, 1.0, 2.0, 5.0)},
    grid_quick={"k": (5, 16), "eps0": (1.0,), "eps": (0.0, 1.0)},  # eps = eps0: delta must be 0
    pipeline=identifiable_claim,
    witness=bent_public_view,
    coordinates=COORDINATES,
    variables={
        "certified_eps": ScenarioVariable("exact eps of the public channel (ldp_epsilon, <= eps0)", "nats",
                                          bent_certified_eps),
        "sigma_min": ScenarioVariable("smallest singular value of the public channel (closed form)", "1",
                                      bent_sigma_min),
        "sigma_min_svd": ScenarioVariable("smallest singular value of the public channel (numpy SVD)", "1",
                                          bent_svd_sigma_min),
        "recovery_failure": ScenarioVariable("probability that the key holder does not recover X (exact)", "1",
                                             bent_recovery_failure),
        "risk": ScenarioVariable("n · l2² risk of the public estimate, uniform p (exact)", "1", bent_risk),
        "hr_risk": ScenarioVariable("n · l2² risk of HadamardResponse(k, eps0), uniform p", "1", bent_hr_risk),
        "id_risk": ScenarioVariable("n · l2² risk of IdentifiableRecoverableMechanism, uniform p", "1",
                                    bent_id_risk),
        "randomness_bits": ScenarioVariable("key entropy H(U)", "bit", bent_bits),
        "min_randomness_bits": ScenarioVariable("min_s H(q_min^s): the least randomness", "bit",
                                                identifiable_min_bits),
        "randomness_ratio": ScenarioVariable("randomness / least randomness", "1", bent_ratio),
        "tightness": ScenarioVariable("tightness ratio exact / bound", "1", tightness),
    },
)

SRP_ID_SCENARIOS = (SRP_REC_ID, SRP_ML_HR, SRP_REC_HR)
