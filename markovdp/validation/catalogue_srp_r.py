"""The SRP-R scenario that `markovdp validate` runs: binary Hadamard under a randomness budget of R bits per user.

The claim certified is eps0-LDP (`DeclaredDP(eps0)`: the worst case over every eps0-LDP mechanism); the witness is
the scheme's exact channel (`BudgetedHadamard`, all input pairs neighbours), whose hockey-stick profile is compared
with the claim and estimated by Monte Carlo on its worst pair of rows. The budget is a fraction of BH's randomness,
R = fraction · H2(e^eps0/(e^eps0 + 1)); beside it: the certified eps, the randomness used (key and per-user output
entropy) against R, and the exact l2² risk n · E||f̂ − p||² (uniform p) against BH's and against k/eps0².

Factories are module-level functions so the scenario pickles to dask workers.
"""

from __future__ import annotations

from ..guarantees.coefficients import ldp_epsilon
from ..mechanisms.declared import DeclaredDP
from ..mechanisms.finite import FiniteMechanism
from ..mechanisms.local.binary_hadamard import BinaryHadamard
from ..mechanisms.local.budgeted_hadamard import BudgetedHadamard
from .catalogue import tightness
from .scenario import Scenario, ScenarioVariable


def scheme(k: int, eps0: float, fraction: float) -> BudgetedHadamard:
    """SRP-R at R = fraction · H2(e^eps0/(e^eps0 + 1)) bits (fraction 1: binary Hadamard)."""
    bits = BinaryHadamard(2, float(eps0)).randomness_bits
    return BudgetedHadamard(int(k), float(eps0), float(fraction) * bits)


def claim(k: int, eps0: float, fraction: float, eps: float) -> DeclaredDP:
    return DeclaredDP(float(eps0), 0.0)


def channel(k: int, eps0: float, fraction: float, eps: float) -> FiniteMechanism:
    return FiniteMechanism(scheme(k, eps0, fraction).matrix)


def certified_eps(point: dict, values: dict) -> float:
    return ldp_epsilon(scheme(point["k"], point["eps0"], point["fraction"]).channel)


def eps_excess(point: dict, values: dict) -> float:
    return certified_eps(point, values) - float(point["eps0"])


def budget_bits(point: dict, values: dict) -> float:
    return scheme(point["k"], point["eps0"], point["fraction"]).R


def output_bits(point: dict, values: dict) -> float:
    return scheme(point["k"], point["eps0"], point["fraction"]).user_output_entropy_bits


def key_bits(point: dict, values: dict) -> float:
    return scheme(point["k"], point["eps0"], point["fraction"]).randomness_bits


def n_risk(point: dict, values: dict) -> float:
    return scheme(point["k"], point["eps0"], point["fraction"]).exact_risk()


def risk_over_bh(point: dict, values: dict) -> float:
    return n_risk(point, values) / scheme(point["k"], point["eps0"], 1.0).exact_risk()


def risk_over_reference(point: dict, values: dict) -> float:
    return n_risk(point, values) / (int(point["k"]) / float(point["eps0"]) ** 2)


SRP_R = Scenario(
    name="SRP-R",
    theory_id="SRP-R",
    description="Binary Hadamard under a budget of R bits per user (erasure / one-sided / BH): the exact channel "
                "against its declared eps0 with a Monte Carlo of its worst pair; randomness used vs R and the exact "
                "l2² risk vs BH and k/(n eps0²) beside.",
    grid_full={"k": (4, 8, 16), "eps0": (0.5, 1.0, 2.0), "fraction": (0.0, 0.25, 0.5, 0.9, 1.0),
               "eps": (0.0, 0.25, 0.5, 1.0, 2.0)},
    grid_quick={"k": (4,), "eps0": (1.0,), "fraction": (0.25, 0.9), "eps": (0.0, 1.0)},
    pipeline=claim,
    witness=channel,
    coordinates={"k": ("alphabet size", "1"), "eps0": ("declared privacy level of the scheme", "nats"),
                 "fraction": ("budget R as a fraction of binary Hadamard's H2(e^eps0/(e^eps0 + 1)) bits", "1"),
                 "eps": ("privacy level eps", "nats")},
    variables={
        "certified_eps": ScenarioVariable("exact eps of the channel (ldp_epsilon)", "nats", certified_eps),
        "eps_excess": ScenarioVariable("certified eps − declared eps (<= 1e-12: no false claim)", "nats",
                                       eps_excess),
        "budget_bits": ScenarioVariable("randomness budget R per user", "bit", budget_bits),
        "output_bits": ScenarioVariable("max_{x,j} H(Y | X = x, j): per-user output entropy (<= R)", "bit",
                                        output_bits),
        "key_bits": ScenarioVariable("H(U) of the key realising it", "bit", key_bits),
        "n_risk": ScenarioVariable("n × exact l2² risk at the uniform law", "1", n_risk),
        "risk_over_bh": ScenarioVariable("exact risk / binary Hadamard's", "1", risk_over_bh),
        "risk_over_reference": ScenarioVariable("exact risk / (k / (n eps0²))", "1", risk_over_reference),
        "tightness": ScenarioVariable("tightness ratio exact / bound", "1", tightness),
    },
)

SRP_R_SCENARIOS = (SRP_R,)
