"""The scenarios of local DP and randomness-constrained mechanisms (AAC, SRP) that `markovdp validate` runs.

Local mechanisms are finite channels, so every "exact" value here is a finite sum:

- SRP-Tab1: each frequency oracle's exact channel against its *declared* eps (the worst case over all
  eps-LDP mechanisms, `DeclaredDP`), with a Monte Carlo of the channel's rows; a false claim is a violation.
- AAC-phi-contraction, AAC-LeCam: contraction ratios of KL, chi², TV and E_gamma against phi_n(eps, delta);
  the exact TV of n privatised Bernoulli samples against phi_n · the non-private TV, with Le Cam's bound beside.
- SRP-ML: each analyst's view of the multi-level scheme, certified by BBGG-T1 from the level above (the added
  key is a mixing kernel), against its exact profile; the level's exact eps and the randomness beside.
- SRP-Rec: the recoverable mechanism with the least randomness against its declared eps; the key holder's
  exact failure probability (0) and the minimum randomness beside.
- SRP-Seq: T samples with fresh keys, neighbours differing in one sample, against eps; the exact per-sample eps
  of the same channel with one reused key (inf) beside.

Factories are module-level functions so scenarios pickle to dask workers.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..distributions import Categorical
from ..divergences.exact import hockey_stick, kl, renyi
from ..guarantees.aac import ldp_contraction_bound
from ..guarantees.coefficients import ldp_epsilon
from ..guarantees.le_cam import BernoulliLeCam, bernoulli_rr_le_cam
from ..guarantees.srp import compare_key_reuse, multilevel_predicted_epsilon
from ..mechanisms.declared import DeclaredDP
from ..mechanisms.finite import FiniteMechanism, RandomizedResponse
from ..mechanisms.local import oracles
from ..mechanisms.local.key_reuse import sequence_channel
from ..mechanisms.local.multilevel import MultiLevelMechanism
from ..mechanisms.local.oracles import RegisteredOracles
from ..mechanisms.local.recoverable import RecoverableMechanism, min_recoverable_randomness, min_recoverable_s
from ..operators.algebra import tensor_power
from ..operators.finite import FiniteKernel
from .catalogue import tightness
from .scenario import Scenario, ScenarioVariable

COORDINATES = {
    "eps": ("privacy level eps", "nats"),
    "eps0": ("declared privacy level of the mechanism", "nats"),
    "k": ("alphabet size", "1"),
    "oracle": ("frequency oracle: every registered one (GRR, OUE, RAPPOR = basic unary encoding, HR, BH, SS, OLH, "
               "and the user's, `register_oracle`)", "1"),
    "channel": ("LDP channel family (rr: k-ary RR mixed with delta; built: random rows meeting (eps, delta))", "1"),
    "delta": ("the channel's delta", "1"),
    "n": ("number of samples (channel copies in the tensor product)", "1"),
    "divergence": ("the f-divergence whose contraction is measured (kl, chi2, tv, E_1.5, E_e)", "1"),
    "theta0": ("Bernoulli mean theta0 of P0", "1"),
    "eps_top": ("privacy level eps_1 of the first analyst (levels eps_1, eps_1/2, eps_1/4)", "nats"),
    "level": ("analyst j whose view is post-processed into analyst j + 1's", "1"),
    "T": ("samples per user", "1"),
}


# ------------------------------------------------------------------------------------ SRP-Tab1
# The oracles are the registry's (`markovdp.mechanisms.local.oracles.ORACLES`, re-exported here): the grids below
# read it at each run, so an oracle registered with `register_oracle` is certified too.
ORACLES = oracles.ORACLES


def make_oracle(name: str, k: int, eps0: float):
    return oracles.make_oracle(name, int(k), float(eps0))


def oracle_claim(oracle: str, k: int, eps0: float, eps: float) -> DeclaredDP:
    """What the oracle declares: eps0-LDP, i.e. every pair of rows is within the worst eps0-DP pair."""
    return DeclaredDP(float(eps0), 0.0)


def oracle_channel(oracle: str, k: int, eps0: float, eps: float) -> FiniteMechanism:
    """The oracle's exact channel as a local-DP finite mechanism (all input pairs neighbours): its matrix, or for
    an implicit channel its rows x = 0, 1 lumped by output class (``ldp_kernel()``: the same divergences between
    every pair of rows, AAC-eta), whose Monte Carlo is that of the channel's worst pair read through the class."""
    channel = make_oracle(oracle, k, eps0).channel
    lumped = getattr(channel, "ldp_kernel", None)
    return FiniteMechanism(lumped().matrix if lumped is not None else channel.matrix)


def oracle_certified_eps(point: dict, values: dict) -> float:
    return ldp_epsilon(make_oracle(point["oracle"], point["k"], point["eps0"]).channel)


def oracle_eps_excess(point: dict, values: dict) -> float:
    return oracle_certified_eps(point, values) - float(point["eps0"])


def oracle_randomness(point: dict, values: dict) -> float:
    return make_oracle(point["oracle"], point["k"], point["eps0"]).randomness_bits


SRP_TAB1 = Scenario(
    name="SRP-Tab1",
    theory_id="SRP-Tab1",
    description="Frequency oracles: the exact channel against the declared eps (no false claim), with a Monte "
                "Carlo of its worst pair of rows; certified eps and private randomness per user beside.",
    # eps runs over the declared levels too: at eps = eps0 the claim's delta is 0, so an oracle less private than
    # it declares (e.g. a unary encoding that never resets the true bit) shows there as a violation.
    grid_full={"oracle": RegisteredOracles(), "k": (4, 8), "eps0": (0.5, 1.0, 2.0, 5.0),
               "eps": (0.0, 0.25, 0.5, 1.0, 2.0, 5.0)},
    grid_quick={"oracle": RegisteredOracles(), "k": (4,), "eps0": (1.0, 5.0), "eps": (0.0, 1.0, 5.0)},
    pipeline=oracle_claim,
    witness=oracle_channel,
    coordinates=COORDINATES,
    variables={
        "certified_eps": ScenarioVariable("exact eps of the channel (ldp_epsilon)", "nats", oracle_certified_eps),
        "eps_excess": ScenarioVariable("certified eps − declared eps (<= 1e-12: no false claim)", "nats",
                                       oracle_eps_excess),
        "randomness_bits": ScenarioVariable("private random bits per user", "bit", oracle_randomness),
        "tightness": ScenarioVariable("tightness ratio exact / bound", "1", tightness),
    },
)


# ------------------------------------------------------------------------------------ AAC-phi
#: Inputs of the AAC-phi channels; the seed of their random parts and of the input pairs; pairs per point.
AAC_STATES = 3
AAC_SEED = 2021
AAC_PAIRS = 64


def aac_channel(channel: str, eps: float, delta: float) -> FiniteKernel:
    """An (eps, delta)-LDP channel on AAC_STATES inputs: (1 − delta) A + delta D with A eps-LDP and D
    deterministic (joint convexity of E_{e^eps}); A = k-ary RR ("rr") or rows ∝ e^(a), a in [0, eps/2] ("built")."""
    k = AAC_STATES
    rng = np.random.default_rng([AAC_SEED, round(1e6 * eps), round(1e6 * delta)])
    if channel == "rr":
        base = RandomizedResponse(k, eps).matrix
    elif channel == "built":
        base = np.exp(rng.uniform(0.0, eps / 2.0, size=(k, k)))
        base = base / base.sum(axis=1, keepdims=True)
    else:
        raise ValueError(f"`channel` must be one of rr, built; got {channel!r}.")
    matrix = (1.0 - delta) * base + delta * np.eye(k)[rng.integers(0, k, size=k)]
    return FiniteKernel(matrix / matrix.sum(axis=1, keepdims=True))


def _divergence(name: str, p: NDArray[np.float64], q: NDArray[np.float64]) -> float:
    mu, nu = Categorical(p), Categorical(q)
    if name == "kl":
        return kl(mu, nu)
    if name == "chi2":
        return math.expm1(renyi(mu, nu, alpha=2.0))  # chi² = e^(R_2) − 1
    gamma = {"tv": 1.0, "E_1.5": 1.5, "E_e": math.e}[name]
    return float(hockey_stick(mu, nu, eps=math.log(gamma)))


def aac_phi_bound(point: dict) -> tuple[float, str, dict[str, float]]:
    """AAC-phi: phi_n(eps*, delta), eps* = ldp_epsilon(K, delta) (<= the target eps by construction)."""
    kernel = aac_channel(point["channel"], point["eps"], point["delta"])
    value = ldp_contraction_bound(ldp_epsilon(kernel, point["delta"]), point["delta"], int(point["n"]))
    return value, "AAC-phi", {"AAC-phi": value}


def aac_phi_exact(point: dict) -> float:
    """max over fixed-seed input pairs on [k]^n (Dirichlet(1/2) laws, and all point-mass pairs) of the exact
    ratio D(mu K^{⊗n} || nu K^{⊗n}) / D(mu || nu), pairs with D(mu || nu) = 0 or inf skipped."""
    product = tensor_power(aac_channel(point["channel"], point["eps"], point["delta"]), int(point["n"])).matrix
    size = product.shape[0]
    rng = np.random.default_rng([AAC_SEED, size])
    pairs = [tuple(rng.dirichlet(np.full(size, 0.5), size=2)) for _ in range(AAC_PAIRS)]
    eye = np.eye(size)
    pairs += [(eye[i], eye[j]) for i, j in itertools.permutations(range(size), 2)]
    best = 0.0
    for p, q in pairs:
        before = _divergence(point["divergence"], p, q)
        if before > 0.0 and math.isfinite(before):
            best = max(best, _divergence(point["divergence"], p @ product, q @ product) / before)
    return best


AAC_PHI_CONTRACTION = Scenario(
    name="AAC-phi-contraction",
    theory_id="AAC-phi",
    description="Exact contraction ratios of KL, chi², TV and E_gamma through (eps, delta)-LDP channels and their "
                "n-fold products, against phi_n(eps, delta).",
    grid_full={"channel": ("rr", "built"), "eps": (0.1, 0.5, 1.0, 2.0), "delta": (0.0, 0.01, 0.1), "n": (1, 2, 3),
               "divergence": ("kl", "chi2", "tv", "E_1.5", "E_e")},
    grid_quick={"channel": ("rr", "built"), "eps": (0.5, 2.0), "delta": (0.0, 0.1), "n": (1, 2),
                "divergence": ("kl", "tv", "E_e")},
    bound=aac_phi_bound,
    exact=aac_phi_exact,
    estimator="none",
    quantity="ratio",
    label="contraction ratio D(mu K^n || nu K^n) / D(mu || nu)",
    coordinates={**COORDINATES, "eps": ("the channel's target privacy level eps", "nats")},
    variables={"tightness": ScenarioVariable("tightness ratio exact / phi_n", "1", tightness)},
)


# ------------------------------------------------------------------------------------ AAC-LeCam
#: The separation theta1 − theta0 of the two Bernoulli means.
LE_CAM_GAP = 0.2


def _le_cam(point: dict) -> BernoulliLeCam:
    theta0 = float(point["theta0"])
    return bernoulli_rr_le_cam(point["eps"], int(point["n"]), theta0=theta0, theta1=theta0 + LE_CAM_GAP)


def le_cam_bound_tv(point: dict) -> tuple[float, str, dict[str, float]]:
    """AAC-phi with n: TV(P0^n K^n, P1^n K^n) <= phi_n(eps, 0) TV(P0^n, P1^n)."""
    value = float(_le_cam(point).tv_phi_bound)
    return value, "AAC-phi", {"AAC-phi": value}


def le_cam_exact_tv(point: dict) -> float:
    return float(_le_cam(point).tv_private)


# ScenarioVariable.compute must be a module-level function (it pickles to workers): one per column.
def le_cam_private(point: dict, values: dict) -> float:
    return float(_le_cam(point).le_cam_private)


def le_cam_nonprivate(point: dict, values: dict) -> float:
    return float(_le_cam(point).le_cam_nonprivate)


def le_cam_effective(point: dict, values: dict) -> float:
    return float(_le_cam(point).le_cam_effective)


def le_cam_n_effective(point: dict, values: dict) -> float:
    return float(_le_cam(point).n_effective)


def le_cam_at_effective_n(point: dict, values: dict) -> float:
    return float(_le_cam(point).le_cam_at_effective_n)


def le_cam_n_effective_duchi(point: dict, values: dict) -> float:
    return float(_le_cam(point).n_effective_duchi)


AAC_LE_CAM = Scenario(
    name="AAC-LeCam",
    theory_id="AAC-LeCam",
    description="Bernoulli mean estimation under binary RR: exact TV of the n privatised samples vs "
                "phi_n · non-private TV; the exact two-point Le Cam bound beside the effective sample size phi·n.",
    grid_full={"eps": (0.25, 0.5, 1.0, 2.0, 5.0), "n": (1, 5, 20, 100, 500, 2000), "theta0": (0.1, 0.4)},
    grid_quick={"eps": (0.5, 2.0), "n": (1, 20, 200), "theta0": (0.4,)},
    bound=le_cam_bound_tv,
    exact=le_cam_exact_tv,
    estimator="none",
    quantity="tv",
    label="total variation of the n privatised samples",
    coordinates={**COORDINATES, "eps": ("randomized response privacy level eps", "nats")},
    variables={
        "le_cam_private": ScenarioVariable("exact two-point Le Cam bound on the private minimax squared-error risk",
                                           "1", le_cam_private),
        "le_cam_nonprivate": ScenarioVariable("exact two-point Le Cam bound without privatisation", "1",
                                              le_cam_nonprivate),
        "le_cam_effective": ScenarioVariable("provable bound (gap²/8) exp(-phi n KL(P0||P1)) <= le_cam_private",
                                             "1", le_cam_effective),
        "n_effective": ScenarioVariable("AAC's effective sample size phi(eps, 0) n (comparison)", "1",
                                        le_cam_n_effective),
        "le_cam_at_effective_n": ScenarioVariable("non-private Le Cam bound at ceil(phi n) samples (comparison)",
                                                  "1", le_cam_at_effective_n),
        "n_effective_duchi": ScenarioVariable("the earlier effective sample size 4 eps² n (comparison)", "1",
                                              le_cam_n_effective_duchi),
    },
)


# ------------------------------------------------------------------------------------ SRP-ML
def multilevel(eps_top: float) -> MultiLevelMechanism:
    """The three-level binary scheme with levels (eps_1, eps_1/2, eps_1/4)."""
    return MultiLevelMechanism((eps_top, eps_top / 2, eps_top / 4), k=2)


def multilevel_step(eps_top: float, level: int, eps: float):
    """Analyst j's view post-processed by the key analyst j + 1 lacks: analyst j + 1's view (BBGG-T1 applies)."""
    scheme = multilevel(eps_top)
    return scheme.view(int(level)) >> scheme.added_key(int(level))


def multilevel_exact_eps(point: dict, values: dict) -> float:
    return ldp_epsilon(multilevel(point["eps_top"]).view(int(point["level"]) + 1))


def multilevel_target_eps(point: dict, values: dict) -> float:
    return float(point["eps_top"]) / 2 ** int(point["level"])


def multilevel_predicted_eps(point: dict, values: dict) -> float:
    return multilevel_predicted_epsilon(multilevel(point["eps_top"]), int(point["level"]))


def multilevel_bits(point: dict, values: dict) -> float:
    return multilevel(point["eps_top"]).randomness_bits


def multilevel_trivial_bits(point: dict, values: dict) -> float:
    return multilevel(point["eps_top"]).trivial_randomness_bits


SRP_ML = Scenario(
    name="SRP-ML",
    theory_id="SRP-ML",
    description="Multi-level privacy with additive keys: analyst j + 1's view is analyst j's post-processed by one "
                "more key; BBGG-T1's certificate against the exact profile, with the exact and target eps and the "
                "randomness of the scheme vs independent releases.",
    grid_full={"eps_top": (0.5, 1.0, 2.0, 5.0), "level": (1, 2), "eps": (0.0, 0.1, 0.25, 0.5)},
    grid_quick={"eps_top": (1.0, 5.0), "level": (1, 2), "eps": (0.0, 0.25)},
    pipeline=multilevel_step,
    coordinates=COORDINATES,
    variables={
        "target_eps": ScenarioVariable("target eps of analyst j + 1", "nats", multilevel_target_eps),
        "exact_eps": ScenarioVariable("exact eps of analyst j + 1's view (ldp_epsilon)", "nats",
                                      multilevel_exact_eps),
        "predicted_eps": ScenarioVariable("BBGG-T1's eps for analyst j + 1 from analyst j's", "nats",
                                          multilevel_predicted_eps),
        "randomness_bits": ScenarioVariable("random bits per user of the multi-level scheme", "bit",
                                            multilevel_bits),
        "trivial_randomness_bits": ScenarioVariable("random bits per user of independent releases", "bit",
                                                    multilevel_trivial_bits),
        "tightness": ScenarioVariable("tightness ratio exact / bound", "1", tightness),
    },
)


# ------------------------------------------------------------------------------------ SRP-Rec
def recoverable(k: int, eps0: float) -> RecoverableMechanism:
    """The recoverable mechanism Y = X + U mod k with the least-randomness key q_min^s (s = the argmin)."""
    return RecoverableMechanism(int(k), float(eps0), min_recoverable_s(int(k), float(eps0)))


def recoverable_claim(k: int, eps0: float, eps: float) -> DeclaredDP:
    return DeclaredDP(float(eps0), 0.0)


def recoverable_public_view(k: int, eps0: float, eps: float) -> RecoverableMechanism:
    return recoverable(k, eps0)


def exact_recovery_failure(mech: Any) -> float:
    """P(recover(Y, U) != X) of a recoverable mechanism for uniform X, summed exactly over every (x, u)."""
    table = mech.keyed.table
    xs, us = np.meshgrid(np.arange(mech.k), np.arange(table.shape[1]), indexing="ij")
    wrong = mech.recover(table[xs, us], us) != xs
    return float((wrong * mech.key_probs[us]).sum() / mech.k)


def recovery_failure(point: dict, values: dict) -> float:
    return exact_recovery_failure(recoverable(point["k"], point["eps0"]))


def recoverable_bits(point: dict, values: dict) -> float:
    return min_recoverable_randomness(int(point["k"]), float(point["eps0"]))


def recoverable_s(point: dict, values: dict) -> float:
    return float(min_recoverable_s(int(point["k"]), float(point["eps0"])))


SRP_REC = Scenario(
    name="SRP-Rec",
    theory_id="SRP-Rec",
    description="Private recoverability: the key holder recovers X exactly while the public view is eps-LDP with "
                "the least additive-key randomness min_s H(q_min^s).",
    grid_full={"k": (2, 4, 8), "eps0": (0.5, 1.0, 2.0, 5.0), "eps": (0.0, 0.25, 0.5, 1.0, 2.0, 5.0)},
    grid_quick={"k": (2, 8), "eps0": (0.5, 2.0), "eps": (0.0, 0.5, 2.0)},  # eps = eps0: see SRP-Tab1
    pipeline=recoverable_claim,
    witness=recoverable_public_view,
    coordinates=COORDINATES,
    variables={
        "recovery_failure": ScenarioVariable("probability that the key holder does not recover X (exact)", "1",
                                             recovery_failure),
        "randomness_bits": ScenarioVariable("min_s H(q_min^s): the least randomness (additive keys)", "bit",
                                            recoverable_bits),
        "s": ScenarioVariable("the argmin s", "1", recoverable_s),
        "tightness": ScenarioVariable("tightness ratio exact / bound", "1", tightness),
    },
)


# ------------------------------------------------------------------------------------ SRP-Seq
def _one_sample_pairs(k: int, T: int) -> list[tuple[int, int]]:
    """Index pairs of the T-tuples on [k]^T that differ in exactly one sample (flat C-order indices)."""
    shape = (k,) * T
    pairs = []
    for a, b in itertools.combinations(range(k**T), 2):
        if sum(i != j for i, j in zip(np.unravel_index(a, shape), np.unravel_index(b, shape), strict=True)) == 1:
            pairs.append((a, b))
    return pairs


def sequence_claim(k: int, eps0: float, T: int, eps: float) -> DeclaredDP:
    return DeclaredDP(float(eps0), 0.0)


def fresh_keys(k: int, eps0: float, T: int, eps: float) -> FiniteMechanism:
    """T samples each randomised with its own key (k-ary RR as Y = X + U mod k), one-sample neighbours."""
    channel = sequence_channel(RecoverableMechanism(int(k), float(eps0), 1), int(T), reuse=False)
    return FiniteMechanism(channel.matrix, neighbours=_one_sample_pairs(int(k), int(T)))


def _reuse(point: dict):
    return compare_key_reuse(RecoverableMechanism(int(point["k"]), float(point["eps0"]), 1), int(point["T"]))


def reused_sample_eps(point: dict, values: dict) -> float:
    return _reuse(point).sample_eps_reused


def fresh_sample_eps(point: dict, values: dict) -> float:
    return _reuse(point).sample_eps_fresh


def fresh_bits(point: dict, values: dict) -> float:
    return _reuse(point).bits_fresh


def reused_bits(point: dict, values: dict) -> float:
    return _reuse(point).bits_reused


SRP_SEQ = Scenario(
    name="SRP-Seq",
    theory_id="SRP-Seq",
    description="T samples per user: fresh keys keep eps per sample with T times the randomness; one reused key "
                "leaks every difference x_t − x_s (its exact per-sample eps beside).",
    grid_full={"k": (2, 3), "eps0": (0.5, 1.0, 2.0), "T": (2, 3), "eps": (0.0, 0.25, 0.5, 1.0, 2.0)},
    grid_quick={"k": (2, 3), "eps0": (1.0,), "T": (2,), "eps": (0.0, 1.0)},
    pipeline=sequence_claim,
    witness=fresh_keys,
    coordinates=COORDINATES,
    variables={
        "fresh_sample_eps": ScenarioVariable("exact per-sample eps with fresh keys", "nats", fresh_sample_eps),
        "reused_sample_eps": ScenarioVariable("exact per-sample eps with one reused key", "nats", reused_sample_eps),
        "fresh_bits": ScenarioVariable("random bits per user, fresh keys", "bit", fresh_bits),
        "reused_bits": ScenarioVariable("random bits per user, one reused key", "bit", reused_bits),
    },
)

LOCAL_SCENARIOS = (SRP_TAB1, AAC_PHI_CONTRACTION, AAC_LE_CAM, SRP_ML, SRP_REC, SRP_SEQ)
