"""Every public callable refuses a bad argument (issue 13 §2): a ValueError/TypeError naming the parameter.

The walk: every callable in ``markovdp.__all__`` and in the ``__all__`` of every public subpackage (found by
walking the package tree, private ``_`` modules skipped; one object tested once, so a deprecated top-level alias
that forwards to a walked name is not tested twice). Each needs an entry in `GOOD` (valid arguments) or in
`EXEMPT` (why it has no argument to check); a public name in neither makes `test_every_public_name_is_in_the_table`
fail, so a new name cannot skip the walk.

For each parameter, its kind (from its name, or the case's ``kinds`` override; an unknown name fails the test)
selects a table of bad values (`BAD`): NaN, ±inf, negatives, 0, empty, strings, None, complex, wrong shapes and
huge sizes. Each bad call, with valid values for the other parameters, must raise ValueError or TypeError whose
message names the parameter in backticks, within `LIMIT` seconds (a SIGALRM timer), and never return a result.
A *huge* value (a size of 1e9 or 2^70, a real of 1e308) may instead return a result within the limit, if the
result is real and not NaN (a closed form at n = 1e9 is a fine answer; a hang, a MemoryError, an OverflowError or
a NaN is not). The address space is capped during a bad call, so a size refused too late fails with MemoryError
instead of swapping the machine.
"""

from __future__ import annotations

import atexit
import faulthandler
import importlib
import inspect
import math
import pkgutil
import resource
import shutil
import signal
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numba
import numpy as np
import pytest

import markovdp as md
from markovdp import _validation
from markovdp.diffusions.gradient import gradient_sde

#: Seconds a bad call may take before it counts as a hang (the issue's "within a second").
LIMIT = 1.0
#: Extra address space a bad call may map (bytes); past it numpy raises MemoryError instead of swapping.
ADDRESS_SPACE_MARGIN = 2 * 2**30
#: A hang in C code the alarm cannot interrupt ends the run with a traceback after this many seconds.
HARD_LIMIT = 60.0
#: The library's memory cap (bytes) and work cap (steps) during the test: a call past them must refuse.
MEMORY_CAP, WORK_CAP = 2**30, 1e9


@pytest.fixture(autouse=True)
def _caps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_validation, "memory_cap_bytes", MEMORY_CAP)
    monkeypatch.setattr(_validation, "work_cap_steps", WORK_CAP)


# ---------------------------------------------------------------------------------------------------
# The walk
# ---------------------------------------------------------------------------------------------------

def public_packages() -> list[str]:
    names = ["markovdp"]
    for info in pkgutil.walk_packages(md.__path__, "markovdp."):
        if info.ispkg and not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return names


def public_callables() -> dict[str, Any]:
    """Name → object for every callable in a public ``__all__``, one entry per object: under its own
    ``__name__`` when it is exported under that name (``register``, also exported as ``register_divergence``),
    else under the first name found. A deprecated alias (a DeprecationWarning on access) is tested through the
    name it forwards to."""
    names: dict[int, list[str]] = {}
    objects: dict[int, Any] = {}
    aliases: list[tuple[str, Any]] = []
    for package in public_packages():
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", ()):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                obj = getattr(module, name)
            if not callable(obj):
                continue
            if any(issubclass(w.category, DeprecationWarning) for w in caught):
                aliases.append((name, obj))
                continue
            objects[id(obj)] = obj
            names.setdefault(id(obj), [])
            if name not in names[id(obj)]:
                names[id(obj)].append(name)
    found: dict[str, Any] = {}
    for key, exported in names.items():
        own = getattr(objects[key], "__name__", None)
        name = own if own in exported else exported[0]
        assert name not in found, f"two public objects are both called {name!r}: key the table by module"
        found[name] = objects[key]
    for name, obj in aliases:
        target = getattr(obj, "__wrapped__", obj)
        assert id(target) in objects, f"deprecated alias {name!r} forwards to no walked name"
    return found


PUBLIC = public_callables()
#: The walked objects by name, wherever they are exported now (the tests below survive a move of a name).
API = SimpleNamespace(**PUBLIC)


# ---------------------------------------------------------------------------------------------------
# Bad values per parameter kind
# ---------------------------------------------------------------------------------------------------

NAN, INF = math.nan, math.inf
ERROR, HUGE = "error", "huge"
_REAL_COMMON = [("nan", NAN), ("str", "1"), ("None", None), ("complex", 1 + 1j), ("nan-in-array", [0.5, NAN]),
                ("object", object())]
_INT_COMMON = [("negative", -1), ("float", 1.5), ("nan", NAN), ("str", "3"), ("None", None), ("complex", 1j),
               ("huge", 10**9), ("huge-bigint", 2**70)]
_OBJECT = [("None", None), ("float", 1.0), ("str", "x"), ("object", object())]
_ARRAY_COMMON = [("nan", [NAN, 0.5]), ("str", "x"), ("None", None), ("complex", [1j, 0.5]), ("object", object()),
                 ("ragged", [[0.5], [0.5, 0.5]])]

BAD: dict[str, list[tuple[str, Any]]] = {
    # reals (scalar or array where the function is vectorised)
    "pos": [*_REAL_COMMON, ("inf", INF), ("-inf", -INF), ("negative", -1.0), ("zero", 0.0), ("huge", 1e308),
            ("tiny", 1e-300), ("array", [0.5, 0.6])],
    "pos_inf": [*_REAL_COMMON, ("-inf", -INF), ("negative", -1.0), ("zero", 0.0)],
    "nonneg": [*_REAL_COMMON, ("inf", INF), ("-inf", -INF), ("negative", -1.0), ("huge", 1e308)],
    "nonneg_inf": [*_REAL_COMMON, ("-inf", -INF), ("negative", -1.0), ("huge", 1e308)],
    "real": [*_REAL_COMMON, ("inf", INF), ("-inf", -INF), ("huge", 1e308)],
    "prob": [*_REAL_COMMON, ("inf", INF), ("negative", -0.1), ("above-one", 1.5)],
    "open_prob": [*_REAL_COMMON, ("inf", INF), ("negative", -0.1), ("above-one", 1.5), ("zero", 0.0), ("one", 1.0)],
    "dt": [*_REAL_COMMON, ("inf", INF), ("negative", -1.0), ("zero", 0.0), ("tiny-step", 1e-15),
           ("tinier-step", 1e-300)],  # a step that would take hours (the issue's simulate(..., dt=1e-15))
    "alpha": [*_REAL_COMMON, ("-inf", -INF), ("one", 1.0), ("half", 0.5), ("negative", -2.0), ("huge", 1e308)],
    # integers
    "int0": [*_INT_COMMON],
    "int1": [*_INT_COMMON, ("zero", 0)],
    "int2": [*_INT_COMMON, ("zero", 0), ("one", 1)],
    # arrays
    "vector": [*_ARRAY_COMMON, ("empty", []), ("inf", [INF, 0.5]), ("2-D", [[0.5, 0.5], [0.5, 0.5]])],
    "points": [*_ARRAY_COMMON, ("inf", [INF, 0.5])],
    "probvec": [*_ARRAY_COMMON, ("empty", []), ("negative", [1.5, -0.5]), ("not-summing", [0.5, 0.6]),
                ("2-D", [[0.5, 0.5], [0.5, 0.5]])],
    "matrix": [*_ARRAY_COMMON, ("empty", np.zeros((0, 0))), ("1-D", [0.5, 0.5]), ("negative", [[1.5, -0.5], [0, 1]]),
               ("not-stochastic", [[0.5, 0.6], [0.5, 0.5]])],
    "states": [("negative", [-1, 0]), ("float", [0.5, 1.0]), ("str", "x"), ("None", None), ("nan", [NAN]),
               ("complex", [1j])],
    # objects of the library and functions
    "object": _OBJECT,
    "callable": [("None", None), ("float", 1.0), ("str", "f")],
    "rng": [("str", "seed"), ("float", 1.5), ("negative", -1), ("object", object())],
    "choice": [("unknown", "no-such-choice"), ("int", 1), ("object", object())],
    "name": [("unknown", "NO-SUCH-NAME"), ("int", 1), ("None", None)],
    "kernels": [("None", None), ("float", 1.0), ("str", "x"), ("empty", [])],
    "bracket": [("None", None), ("float", 1.0), ("str", "ab"), ("triple", (0.5, 1.0, 2.0)), ("equal", (1.0, 1.0)),
                ("reversed", (50.0, 0.5)), ("inf", (0.5, INF)), ("nan", (NAN, 1.0)), ("complex", (1j, 2.0))],
    # parameters with nothing to check: a flag (any truth value), a free-form record field
    "flag": [],
    "free": [],
}
HUGE_LABELS = {"huge", "huge-bigint", "tiny"}

#: The kind of a parameter from its name (a case's ``kinds`` overrides it).
PARAM_KINDS: dict[str, str] = {
    **dict.fromkeys(["sigma", "scale", "sensitivity", "sigma1", "sigma2", "scale1", "scale2", "radius", "theta",
                     "rho", "t", "t1", "eta", "smoothness", "density_lipschitz", "step", "tail",
                     "data_bound", "timeout", "epsrel", "rtol", "s"], "pos"),
    **dict.fromkeys(["lipschitz", "strong_convexity", "regularization", "shift", "distance", "dist",
                     "eps_from", "eps_to", "eps0", "eps_single"], "nonneg"),
    **dict.fromkeys(["eps"], "nonneg"),
    **dict.fromkeys(["delta", "delta0", "theta0", "theta1", "p"], "prob"),
    **dict.fromkeys(["confidence"], "open_prob"),
    **dict.fromkeys(["alpha"], "alpha"),
    **dict.fromkeys(["loc", "mean", "a", "b", "c", "L", "value", "x0"], "real"),
    **dict.fromkeys(["n", "T", "dim", "d", "r", "max_points", "samples", "n_points_total", "batch_size",
                     "n_paths", "workers", "noise_dim", "record_dim", "n_outputs", "chunk_size"], "int1"),
    **dict.fromkeys(["k"], "int2"),
    **dict.fromkeys(["index", "point", "batch"], "int0"),
    **dict.fromkeys(["matrix", "K"], "matrix"),
    **dict.fromkeys(["probs", "key_probs", "law", "f"], "probvec"),
    **dict.fromkeys(["mechanism", "kernel", "semigroup", "sde", "solver", "loss", "projection", "mu", "nu",
                     "space", "space_", "sgd", "subject", "pipeline", "base", "first", "then", "channel",
                     "scenario", "plan", "executor", "domain", "noise", "shifted", "law_"], "object"),
    **dict.fromkeys(["drift", "diffusion", "psi", "kappa", "log_density", "carre_du_champ", "gradient", "cdf",
                     "pdf", "rdp_curve", "mechanism_rdp", "kernel_rdp", "log_density_p", "log_density_q",
                     "log_ratio", "progress", "compute"], "callable"),
    **dict.fromkeys(["dt"], "dt"),
    **dict.fromkeys(["rng"], "rng"),
    **dict.fromkeys(["method", "backend", "interval", "target", "scheduler"], "choice"),
    **dict.fromkeys(["theorem_id", "name"], "name"),
    **dict.fromkeys(["out", "path"], "path"),
    **dict.fromkeys(["kernels", "operators"], "kernels"),
    **dict.fromkeys(["secure", "optimized", "reuse", "replace", "polish", "require", "exhaustive", "quick",
                     "all_pairs", "lipschitz_everywhere", "resume", "fresh", "keep_checkpoints", "break_lock"], "flag"),
    **dict.fromkeys(["seed", "command", "description", "label", "units", "long_name", "attrs", "extra", "inputs",
                     "theorem", "reason", "coordinates", "variables", "manifest", "root", "keys",
                     "points", "grid", "grid_full", "grid_quick", "theory_id", "quantity", "estimator", "witness",
                     "pair", "bound", "exact", "sampler", "bins", "direction", "thresholds", "save_at",
                     "isometry", "y_bounds", "rules", "neighbours", "test_point", "terms"], "free"),
    **dict.fromkeys(["increments"], "points"),
    **dict.fromkeys(["x", "x_prime", "samples_p", "samples_q", "estimate", "truth", "distances", "eps_levels",
                     "low", "high", "A", "H", "cov", "noise_cov", "image", "dataset", "other", "alphas"], "vector"),
}


# ---------------------------------------------------------------------------------------------------
# The table: valid arguments for every public callable
# ---------------------------------------------------------------------------------------------------

@dataclass
class Case:
    """Valid arguments of one public callable, and how its parameters differ from `PARAM_KINDS`."""

    build: Callable[[], tuple[tuple[Any, ...], dict[str, Any]]]
    kinds: dict[str, str] = field(default_factory=dict)
    enter: bool = False  # a context manager: the call includes entering it (where it checks its arguments)


def case(*args: Any, _kinds: dict[str, str] | None = None, _enter: bool = False, **kwargs: Any) -> Case:
    return Case(lambda: (args, kwargs), _kinds or {}, _enter)


def lazy(build: Callable[[], tuple[tuple[Any, ...], dict[str, Any]]], **kinds: str) -> Case:
    return Case(build, kinds)


def _quad_gradient(x: np.ndarray, z: np.ndarray, out: np.ndarray) -> None:  # ∇_x ½|x − z|²
    out[:] = x - z


@numba.njit
def _halve(x: np.ndarray) -> np.ndarray:
    return 0.5 * x


class _Law:
    """A law type of the test's own, to register a divergence rule on."""


def _registered_rule() -> tuple[tuple[Any, ...], dict[str, Any]]:
    """A rule for `unregister` to remove; harmless to the other tests of the process should it stay (it says it
    does not apply), and removed when this module's tests end (`_no_rule_left_behind`)."""
    md.theorem("TEST-INPUTS-RULE", replace=True)(lambda subject: md.NotApplicable("TEST-INPUTS-RULE", "a test rule"))
    return ("TEST-INPUTS-RULE",), {}


@pytest.fixture(autouse=True, scope="module")
def _no_rule_left_behind() -> Any:
    yield
    if "TEST-INPUTS-RULE" in md.guarantees.registered_theorems():
        md.unregister("TEST-INPUTS-RULE")


#: The folder `out_lock` locks (and unlocks) in the walk; removed when the tests end.
LOCK_DIR = tempfile.mkdtemp(prefix="markovdp-inputs-")
atexit.register(shutil.rmtree, LOCK_DIR, True)

RR = md.RandomizedResponse(3, 1.0)
FK = md.FiniteKernel([[0.7, 0.3], [0.2, 0.8]])
GM = md.GaussianMechanism(1.0)
GK = md.GaussianKernel(0.5)
N01, N11 = md.Normal(0.0, 1.0), md.Normal(1.0, 1.0)
BALL = md.Ball(1, 1.0)
OU = md.OrnsteinUhlenbeckSemigroup(1.0, 1.0)
BM = md.BrownianSemigroup()


@numba.njit
def ou_drift(x: np.ndarray) -> np.ndarray:
    return -x


@numba.njit
def unit_diffusion(x: np.ndarray) -> np.ndarray:
    return np.ones_like(x)


SDE1 = md.SDE(ou_drift, unit_diffusion, dim=1)
SGD = md.NoisyProjSGD(md.QuadraticLoss(BALL), 0.5, 1.0, None, 0.0, n=3)
KEYED = md.KeyedMechanism([[0, 1], [1, 0]], [0.5, 0.5])
REC = md.RecoverableMechanism(3, 1.0, 1)
MVN0, MVN1 = md.MultivariateNormal([0.0, 0.0], np.eye(2)), md.MultivariateNormal([1.0, 0.0], np.eye(2))


def brownian_log_density(s: float, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return -((y - x) ** 2).sum(axis=-1) / (4.0 * s) - 0.5 * y.shape[-1] * math.log(4.0 * math.pi * s)


def unit_gamma(y: np.ndarray, grad: np.ndarray) -> np.ndarray:
    return (grad**2).sum(axis=-1)


def brownian_gradient(s: float, y: np.ndarray) -> np.ndarray:  # x = 0, x' = 1: ∇ h_s = (x − x')/(2s)
    return np.full_like(y, -1.0 / (2.0 * s))


def gaussian_rdp(alpha: Any, shift: float) -> Any:
    return API.gaussian_shift_rdp(alpha, shift, 1.0)


NUMERICAL = dict(y_bounds=(-2.0, 3.0), gradient=brownian_gradient)

#: The parameters of the AAC-Bayes functions (the prior's None is its default: not a bad value).
BAYES_KINDS = {"channel": "kernel_or_matrix", "thetas": "vector", "laws": "matrix", "prior": "free", "loss": "choice",
               "estimator": "flag"}

GOOD: dict[str, Case] = {
    # --- spaces, laws
    "FiniteSpace": case(3, _kinds={"k": "int1"}),
    "RealSpace": case(2),
    "Ball": case(2, 1.0),
    "Box": case([0.0, 0.0], [1.0, 1.0]),
    "PointMass": case(0.5, _kinds={"x": "points"}),
    "Categorical": case([0.2, 0.8]),
    "Empirical": case([0.1, 0.5, 0.9], _kinds={"samples": "points"}),
    "Normal": case(0.0, 1.0),
    "Laplace": case(0.0, 1.0),
    "LaplaceSum": case(0.0, 1.0, 2.0),
    "LaplaceSumN": case(0.0, (1.0, 2.0, 0.5), _kinds={"scales": "vector"}),
    "NormalLaplace": case(0.0, 1.0, (1.0, 2.0), _kinds={"scales": "vector"}),
    "MultivariateNormal": case([0.0, 0.0], np.eye(2), _kinds={"mean": "vector", "cov": "matrix_any"}),
    "as_multivariate_normal": case(N01, _kinds={"law": "object"}),
    # --- divergences
    "hockey_stick": case(N01, N11, eps=0.5, _kinds={"eps": "nonneg_inf"}),
    "tv": case(N01, N11),
    "kl": case(N01, N11),
    "renyi": case(N01, N11, alpha=2.0),
    "hockey_stick_finite": case(np.array([0.5, 0.5]), np.array([0.2, 0.8]), np.array([0.1]),
                                _kinds={"p": "probvec", "q": "probvec", "eps": "nonneg_inf"}),
    "kl_finite": case(np.array([0.5, 0.5]), np.array([0.2, 0.8]), _kinds={"p": "probvec", "q": "probvec"}),
    "renyi_finite": case(np.array([0.5, 0.5]), np.array([0.2, 0.8]), np.array([2.0]),
                         _kinds={"p": "probvec", "q": "probvec"}),
    "laplace_sum_hockey_stick": case(1.0, 2.0, 1.0, 0.5, _kinds={"a": "pos", "b": "pos", "eps": "nonneg_inf"}),
    "laplace_sum_kl": case(1.0, 2.0, 1.0, _kinds={"a": "pos", "b": "pos"}),
    "laplace_sum_renyi": case(1.0, 2.0, 1.0, 2.0, _kinds={"a": "pos", "b": "pos"}),
    "mahalanobis": case(np.array([1.0, 0.0]), np.eye(2), _kinds={"delta": "vector", "cholesky": "matrix_any"}),
    "mvn_kl": case(MVN0, MVN1, _kinds={"p": "object", "q": "object"}),
    "mvn_renyi": case(MVN0, MVN1, 2.0, _kinds={"p": "object", "q": "object"}),
    "register": case("kl", "closed_form", (_Law, _Law),
                     _kinds={"divergence": "choice", "method": "choice", "pairs": "free"}),
    "estimate_hockey_stick": lazy(lambda: ((np.array([0, 1, 1, 0]), np.array([0, 0, 1, 0])), {"eps": 0.5}),
                                  k="int1", samples_p="points", samples_q="points"),
    "estimate_renyi": lazy(lambda: ((np.array([0, 1, 1, 0]), np.array([0, 0, 1, 0])), {"alpha": 2.0}),
                           k="int1", samples_p="points", samples_q="points"),
    "estimate_hockey_stick_from_counts": case([[3, 1], [2, 2]], [[1, 3], [2, 2]], eps=0.5,
                                              _kinds={"counts_p": "counts", "counts_q": "counts"}),
    "estimate_renyi_from_counts": case([3, 1], [1, 3], alpha=2.0,
                                       _kinds={"counts_p": "counts", "counts_q": "counts"}),
    "estimate_hockey_stick_event": lazy(lambda: ((np.linspace(-1, 1, 50), np.linspace(-0.5, 1.5, 50)),
                                                 {"eps": 0.5, "log_density_p": N01.log_density,
                                                  "log_density_q": N11.log_density})),
    "estimate_renyi_histogram": lazy(lambda: ((np.linspace(-1, 1, 50), np.linspace(-0.5, 1.5, 50)),
                                              {"alpha": 2.0, "bins": 4})),
    "estimate_hockey_stick_importance": lazy(lambda: ((np.linspace(-1, 1, 50),),
                                                      {"eps": 0.5, "log_density_p": N01.log_density,
                                                       "log_density_q": N11.log_density}), samples_p="points"),
    "estimate_renyi_density_ratio": lazy(lambda: ((np.linspace(-1, 1, 50),),
                                                  {"alpha": 2.0, "log_density_p": N01.log_density,
                                                   "log_density_q": N11.log_density}), samples_p="points"),
    # --- operators
    "FiniteKernel": case([[0.7, 0.3], [0.2, 0.8]]),
    "GaussianKernel": case(0.5),
    "LaplaceKernel": case(0.5),
    "AffineGaussianKernel": case(np.eye(2), [0.0, 0.0], 1.0, _kinds={"A": "matrix_any", "b": "vector"}),
    "LipschitzGaussianKernel": case(_halve, 0.5, 0.5),
    "Identity": case(md.RealSpace(1)),
    "Chain": case((FK, FK), _kinds={"operators": "kernels"}),
    "Power": case(FK, 2),
    "Mixture": case((FK, FK), np.array([0.5, 0.5]), _kinds={"components": "kernels", "weights": "probvec"}),
    "Tensor": case((FK, FK), _kinds={"factors": "kernels"}),
    "compose": case(FK, FK),
    "power": case(FK, 2),
    "mixture": case([FK, FK], [0.5, 0.5], _kinds={"weights": "probvec"}),
    "tensor": case(FK, FK, _kinds={"kernels": "varargs_kernels"}),
    "tensor_power": case(FK, 2, _kinds={"kernel": "object"}),
    "grid_push": case(N01, GK, _kinds={"step": "pos"}),
    "GridLaw": case([0.0, 1.0], [0.0, 1.0], 1e-3, _kinds={"grid": "vector", "cdf_values": "vector",
                                                          "error_bound": "nonneg"}),
    "ShiftNoise": case(lambda x: x, lambda x: x, 1.0, 1.0),
    "shift_noise": case(GK),
    "sample_chain": lazy(lambda: (([md.LipschitzGaussianKernel(_halve, 0.5, 0.5)], np.zeros(3)), {"rng": 0}),
                         x="points"),
    "is_lipschitz_chain": case([GK], _kinds={"operators": "kernels"}),
    "is_lipschitz_everywhere": case(_halve),
    "diagonal_map": case([0.5, 0.2], _kinds={"a": "vector"}),
    "gradient_step_map": case(np.eye(2), 0.1, _kinds={"H": "matrix_any", "b": "vector"}),
    "linear_map": case(0.5),
    "tanh_map": case(0.5),
        # --- diffusions
    "BrownianSemigroup": case(1),
    "OrnsteinUhlenbeckSemigroup": case(1.0, 1.0),
    "DiffusionSemigroup": case(SDE1, md.EulerMaruyama(), 0.01, _kinds={"dt": "pos"}),
    "GradientDiffusion": lazy(lambda: ((gradient_sde("quartic"),), {"potential": "quartic"}), dt="pos",
                              potential="choice"),
    "TimeSlice": case(OU, 0.5),
    "SDE": case(ou_drift, unit_diffusion, 1, _kinds={"noise": "choice"}),
    "simulate": lazy(lambda: ((SDE1, md.EulerMaruyama(), np.zeros(4)), {"t1": 0.1, "dt": 0.01, "rng": 0}),
                     x0="points"),
    "matched_gaussian_mse": case(1.0, 1.0, 0.5, 1, _kinds={"t": "nonneg"}),
    "matched_gaussian_variance": case(1.0, 1.0, 0.5, _kinds={"t": "nonneg"}),
    "ou_mse": case(1.0, 1.0, 0.5, [0.5], _kinds={"t": "nonneg", "value": "vector"}),
    "ou_mse_ratio": case(1.0, 1.0, 0.5, 1, 1.0),
    "ou_theorem8_condition": case(1.0, 1.0, 1, 1.0),
    "ou_theorem8_parameters": case(1.0, 1.0, 1.0, 1),
    "ou_theorem8_ratio_bound": case(1.0, 1.0, 1.0, 1),
    "post_processed_gaussian_mse": case(1.0, 1.0, 0.5, 1, 1.0, _kinds={"t": "nonneg"}),
    "post_processed_gaussian_mse_at": case(1.0, 1.0, 0.5, [0.5], 1.0, _kinds={"t": "nonneg", "value": "vector"}),
    # --- mechanisms
    "GaussianMechanism": case(1.0),
    "LaplaceMechanism": case(1.0),
    "RandomizedResponse": case(3, 1.0),
    "FiniteMechanism": case([[0.7, 0.3], [0.2, 0.8]]),
    "DeclaredDP": case(1.0, 0.0),
    "PostProcessed": case(RR, md.FiniteKernel(np.eye(3))),
    "DiffusionMechanism": case(OU, 0.5),
    "L1Ball": case(1.0),
    "L2Ball": case(1.0),
    "IndexPairs": case(((0, 1),), _kinds={"pairs": "free"}),
    "CanonicalPairs": case(1.0, 0.0),
    "BlackBoxPairs": case(np.array([0.1, 0.6, 0.3, 0.0]), np.array([0.0, 0.3, 0.6, 0.1]), np.eye(2),
                          _kinds={"P": "probvec", "Q": "probvec"}),
    "worst_case_mechanism": case(md.DeclaredDP(1.0, 0.0) >> FK, 0.5, _kinds={"eps": "nonneg_inf"}),
    "QuadraticLoss": case(BALL),
    "LogisticLoss": case(BALL, 0.1, 1.0),
    "GradientLoss": case(numba.njit(_quad_gradient), 1, 1, 1.0, 1.0),
    "NoisyProjSGD": case(md.QuadraticLoss(BALL), 0.5, 1.0, BALL, 0.0, n=3, _kinds={"projection": "object_opt"}),
    "SGDDifferingAt": case(SGD, 1),
    "DifferingRecord": case(1, _kinds={"index": "int1"}),
    "exact_sgd_outputs": case(SGD, [[0.1], [0.2], [0.3]], [[0.1], [0.2], [-0.3]],
                              _kinds={"dataset": "matrix_any", "other": "matrix_any"}),
    # --- local mechanisms
    "UnaryEncoding": case(4, 1.0),
    "HadamardResponse": case(4, 1.0),
    "BinaryHadamard": case(4, 1.0),
    "SubsetSelection": case(4, 1.0),
    "SubsetChannel": case(4, 2, 1.0),
    "LocalHashing": case(4, 1.0, 3, _kinds={"g": "int2_given"}),
    "HashedChannel": case(4, 3, 1.0, _kinds={"g": "int2"}),
    "ibu": case([5, 3], [[0.7, 0.3], [0.2, 0.8]], tol=1e-9, max_iter=100,
                _kinds={"counts": "vector", "rates": "matrix_any", "tol": "pos", "max_iter": "int1"}),
    "ibu_estimate": case(md.RandomizedResponse(3, 1.0), [0, 1, 2], tol=1e-9, max_iter=100,
                         _kinds={"oracle": "object", "reports": "states", "tol": "pos", "max_iter": "int1"}),
    "make_oracle": case("GRR", 3, 1.0),
    "register_oracle": case("GRR", md.RandomizedResponse, replace=True,  # re-registers the built-in itself
                            _kinds={"name": "str", "factory": "callable"}),
    "UnaryChannel": case(4, (0.5, 0.5), (0.7, 0.3), _kinds={"true_bit": "probvec", "other_bit": "probvec"}),
    "KeyedMechanism": case([[0, 1], [1, 0]], [0.5, 0.5], _kinds={"table": "table"}),
    "BudgetedHadamard": case(4, 1.0, 0.3, _kinds={"R": "nonneg", "budget": "choice"}),
    "budgeted_feature_channel": case(1.0, 0.3, _kinds={"R": "nonneg", "budget": "choice"}),
    "linear_unbiased_risk": case([[0.7, 0.3], [0.2, 0.8]], [0.5, 0.5], 10, _kinds={"p": "probvec"}),
    "optimise_keyed_mechanism": case(2, 1.0, 0.3, n_keys=2, n_outputs=2, starts=0, rng=0,
                                     _kinds={"R": "nonneg", "n_keys": "int1", "n_outputs": "int2",
                                             "budget": "choice", "p": "probvec", "starts": "int0"}),
    "randomness_risk_curve": case(2, 1.0, 10, [0.2], reps=1, seed=0,
                                  _kinds={"R_grid": "vector", "budget": "choice", "p": "probvec", "reps": "int0"}),
    "MultiLevelMechanism": case((1.0, 0.5), 2),
    "multilevel_exact_epsilons": case(md.MultiLevelMechanism((1.0, 0.5), 2)),
    "multilevel_predicted_epsilon": case(md.MultiLevelMechanism((1.0, 0.5), 2), 1, _kinds={"j": "level",
                                                                                       "rules": "rules"}),
    "RecoverableMechanism": case(3, 1.0, 1, _kinds={"s": "int1"}),
    "IdentifiableRecoverableMechanism": case(4, 1.0, _kinds={"eps": "pos"}),
    "identifiable_recoverable_s": case(4, 1.0, _kinds={"eps": "pos"}),
    "recoverable_factor_bound": case(6),
    "HadamardRecoverableMechanism": case(4, 1.0, _kinds={"eps": "pos"}),
    "MultiLevelHadamard": case((1.0, 0.5), 3),
    "added_key_law": case(3, 1.0, 0.5),
    "rr_key_law": case(3, 1.0),
    "binary_entropy": case(0.3),
    "circulant": case([0.5, 0.3, 0.2]),
    "compare_key_reuse": case(KEYED, 2),
    "draw_keys": case([0.5, 0.5], 10, rng=0, _kinds={"n": "int0"}),
    "empirical_frequencies": case([0, 1, 1], 2, _kinds={"x": "states", "k": "int1"}),
    "entropy_bits": case([0.5, 0.5], _kinds={"p": "probvec"}),
    "l1_error": case([0.5, 0.5], [0.4, 0.6], _kinds={"estimate": "rows", "truth": "rows"}),
    "l2_squared_error": case([0.5, 0.5], [0.4, 0.6], _kinds={"estimate": "rows", "truth": "rows"}),
    "linf_error": case([0.5, 0.5], [0.4, 0.6], _kinds={"estimate": "rows", "truth": "rows"}),
    "min_recoverable_randomness": case(3, 1.0),
    "min_recoverable_s": case(3, 1.0),
    "output_entropy_bits": case(KEYED),
    "per_sample_epsilon": case(md.FiniteKernel(np.full((9, 4), 0.25)), 3, 2),
    "project_simplex": case([0.5, 0.7], _kinds={"f": "rows"}),
    "q_min": case(3, 1.0, 1, _kinds={"s": "int1"}),
    "randomness_bits": case(KEYED),
    "sequence_channel": case(KEYED, 2, reuse=True),
    # --- guarantees
    "certify": case(RR, _kinds={"rules": "rules"}),
    "calibrate": case(lambda s: md.GaussianMechanism(s), 1.0, 1e-5, bounds=(0.5, 50.0),
                      _kinds={"family": "callable", "target_eps": "nonneg", "target_delta": "prob",
                              "bounds": "bracket", "integer": "flag"}),
    "describe": case("BBGG-T1.1"),
    "theorem": case("MY-NEW-RULE", _kinds={"theorem_id": "free"}),
    "unregister": Case(_registered_rule),
    "dobrushin": case(FK, 0.5, _kinds={"K": "kernel_or_matrix", "eps": "nonneg_inf"}),
    "doeblin": case(FK, _kinds={"K": "kernel_or_matrix"}),
    "ultra_mixing": case(FK, _kinds={"K": "kernel_or_matrix"}),
    "ldp_epsilon": case(FK, 0.0, _kinds={"K": "kernel_or_matrix"}),
    "ldp_profile": case(FK, 0.5, _kinds={"K": "kernel_or_matrix", "eps": "nonneg_inf"}),
    "ldp_contraction_bound": case(1.0, 0.0, 2, _kinds={"eps": "nonneg_inf"}),
    "coupling_bound": case([0.6, 0.4], [0.3, 0.7], FK, 2.0, omega=[0.5, 0.5], coupling=[[0.3, 0.2], [0.3, 0.2]],
                           _kinds={"mu": "probvec", "nu": "probvec", "K": "kernel_or_matrix", "alpha": "order1",
                                   "omega": "probvec_opt", "coupling": "coupling_opt"}),
    "optimise_coupling_bound": case([0.6, 0.4], [0.3, 0.7], FK, 2.0, restarts=0, rng=0,
                                    _kinds={"mu": "probvec", "nu": "probvec", "K": "kernel_or_matrix",
                                            "alpha": "order1", "restarts": "int0"}),
    "rdp_to_dp": case(1.0, 2.0, 1e-5, _kinds={"rdp_curve_or_value": "nonneg_inf"}),
    "rdp_bound": case("MY-BOUND", {}, lambda a: 0.5 * np.asarray(a), _kinds={"theorem_id": "free"}),
    "rdp_delta_curve": case(lambda a: 0.5 * np.asarray(a), _kinds={"alphas": "alpha"}),
    "gaussian_shift_rdp": case(2.0, 1.0, 1.0, _kinds={"shift": "real"}),
    "laplace_shift_rdp": case(2.0, 1.0, 1.0, _kinds={"shift": "real"}),
    "lipschitz_gaussian_shift_rdp": case(2.0, 1.0, 0.5, 1.0, _kinds={"shift": "real"}),
    "iterated_gaussian_rdp": case(2.0, sensitivity=1.0, sigma1=1.0, sigma2=1.0),
    "iterated_laplace_rdp": case(2.0, sensitivity=1.0, scale1=1.0, scale2=1.0),
    "lipschitz_kernel_rdp": case(2.0, sensitivity=1.0, sigma1=1.0, lipschitz=0.5, sigma2=1.0),
    "translation_coupling_point": case(2.0, 1.0, gaussian_rdp, gaussian_rdp),
    "translation_coupling_rdp": case(2.0, 1.0, gaussian_rdp, gaussian_rdp),
    "lipschitz_chain_rdp": case(2.0, sensitivity=1.0, lipschitz=0.5, sigma=1.0, r=2),
    "lipschitz_chain_opt_rdp": case(2.0, sensitivity=1.0, lipschitz=0.5, sigma=1.0, r=2),
    "lipschitz_path_rdp": case(2.0, [0.5, 0.5], lipschitz=0.5, sigma=1.0),
    "noisy_sgd_rdp": case(lipschitz=1.0, smoothness=1.0, strong_convexity=0.5, eta=0.5, sigma=1.0, n=3, index=1),
    "noisy_sgd_opt_rdp": case(lipschitz=1.0, smoothness=1.0, strong_convexity=0.5, eta=0.5, sigma=1.0, n=3,
                              index=1),
    "public_steps_needed": case(0.1, lipschitz=1.0, smoothness=1.0, strong_convexity=0.5, eta=0.5, sigma=1.0, n=3,
                                index=1, _kinds={"target": "pos"}),
    "synchronous_coupling": lazy(lambda: ((md.LipschitzGaussianKernel(_halve, 0.5, 0.5), [0.0], [1.0]),
                                          {"n_paths": 4, "rng": 0}), process="object", times="vector_opt"),
    "noisy_sgd_convex_rdp": case(lipschitz=1.0, smoothness=1.0, eta=0.5, sigma=1.0, n=3, index=1),
    "opt_factor": case(0.5, 2),
    "privacy_profile": case(RR, 0.5, _kinds={"eps": "nonneg_inf"}),
    "privacy_epsilon": case(RR, 1e-5),
    "renyi_profile": case(RR, 2.0),
    "worst_pair": case(RR, 0.5, _kinds={"eps": "nonneg_inf"}),
    "bernoulli_rr_le_cam": case(1.0, [10, 100]),
    "le_cam_bound": case(np.eye(2), [0.6, 0.4], [0.4, 0.6], 10, theta0=0.4, theta1=0.6,
                         _kinds={"K": "kernel_or_matrix", "p0": "probvec", "p1": "probvec", "theta0": "real",
                                 "theta1": "real"}),
    "product_tv": case([0.6, 0.4], [0.4, 0.6], 10, _kinds={"p": "probvec", "q": "probvec"}),
    "private_test_tradeoff": case(FK, [0.6, 0.4], [0.4, 0.6], 5, 0.1, delta=0.0, eps=2.0,
                                  _kinds={"channel": "kernel_or_matrix", "p0": "probvec", "p1": "probvec",
                                          "alpha": "prob", "eps": "nonneg_inf"}),
    "max_mutual_information": case(3, 1.0, 0.0, [0.2, 0.3, 0.5], _kinds={"input_law": "probvec"}),
    "bayes_risk": case(np.eye(2), [0.0, 1.0], [[0.6, 0.4], [0.4, 0.6]], 5, prior=[0.3, 0.7], loss="absolute",
                       estimator=True, _kinds=BAYES_KINDS),
    "bayes_lower_bound": case(np.eye(2), [0.0, 1.0], [[0.6, 0.4], [0.4, 0.6]], 5, prior=[0.3, 0.7],
                              loss="squared", _kinds=BAYES_KINDS),
    "ldp_bayes_lower_bound": case(1.0, 0.01, [0.0, 1.0], [[0.6, 0.4], [0.4, 0.6]], 5, prior=[0.3, 0.7],
                                  loss="absolute", _kinds=BAYES_KINDS),
    "ldp_e_gamma": case(1.0, 0.01, 5, [1.0, 2.0], _kinds={"gamma": "vector"}),
    "ldp_tv_coefficient": case(1.0, 0.01),
    "canonical_ldp_channel": case(1.0, 0.01),
    "bernoulli_bayes_curve": case([0.5, 1.0], 1e-4, 5, m=4, loss="absolute",
                                  _kinds={"eps_grid": "nonneg", "m": "int2", "loss": "choice"}),
    "bernoulli_crossing_eps": case(0.2, 1e-4, 3, m=3, loss="absolute",
                                   _kinds={"level": "prob", "m": "int2", "loss": "choice"}),
    "PriorFamily": case(np.eye(2), [0.0, 1.0], _kinds={"laws": "matrix", "parameters": "points", "metric": "choice",
                                                        "power": "pos"}),
    "private_fano_bound": case((1.0, 0.0), md.guarantees.PriorFamily(np.eye(2), [0.0, 1.0]), 3,
                               _kinds={"channel_or_eps_delta": "channel_or_pair", "prior_family": "object"}),
    "fano_error_bound": case(0.5, 3, _kinds={"information": "nonneg_inf", "size": "int2"}),
    "hypercube_packing": case(16, _kinds={"k": "int1"}),
    "check_packing": case(np.array([[1, 1], [-1, -1]]), _kinds={"vectors": "table"}),
    "packing_size": case(16, _kinds={"k": "int1"}),
    "mean_le_cam": case(10, 1.0, 0.0, _kinds={"model": "choice", "sigma": "pos"}),
    "l2_mean_fano_bound": case(16, 10, 1.0, 0.0, _kinds={"k": "int1", "eps": "nonneg_inf"}),
    "brownian_intrinsic_sensitivity": case(1.0, 0.5, _kinds={"t": "nonneg"}),
    "ou_intrinsic_sensitivity": case(1.0, 1.0, 1.0, 0.5, _kinds={"t": "nonneg"}),
    "intrinsic_kappa": case(brownian_log_density, unit_gamma, [0.0], [1.0], 0.5, **NUMERICAL),
    "numerical_intrinsic_sensitivity": case(brownian_log_density, unit_gamma, [0.0], [1.0], 0.5, **NUMERICAL),
    "intrinsic_sensitivity_with_error": case(brownian_log_density, unit_gamma, [0.0], [1.0], 0.5, **NUMERICAL),
    "integrate_kappa": case(lambda s: 1.0 / s**2, 1.0),
    "coordinate_carre_du_champ": case(OU.carre_du_champ, 1),
    "semigroup_log_density": case(OU, 1),
    "semigroup_log_ratio_gradient": case(OU, np.zeros(1), np.ones(1)),
    "semigroup_intrinsic_sensitivity": case(OU, 1.0, 0.5, _kinds={"x": "vector_opt", "x_prime": "vector_opt"}),
    "default_y_bounds": case(np.zeros(1), np.ones(1)),
    # --- pairs
    "Pairs": case(((N01, N11),), _kinds={"pairs": "free"}),
    "ShiftPair": case(N01, N11),
    "RowPairs": case(np.array([[0.5, 0.5], [0.2, 0.8]]), np.array([[0, 1]]), _kinds={"index": "free"}),
    "GaussianBallPair": case(np.eye(2), np.eye(2), 1.0, _kinds={"noise_cov": "matrix_any", "image": "matrix_any",
                                                            "factor": "free", "cov_error": "nonneg_inf",
                                                            "image_error": "nonneg_inf"}),
    # --- random
    "as_generator": case(0),
    "task_seed": case(np.random.SeedSequence(0), 1, 2),
    "point_key": case({"eps": 1.0}, _kinds={"coords": "mapping"}),
    # --- validation and sweeps
    "get_scenario": case("BBGG-T1"),
    "certified_delta": case(RR, 0.5, _kinds={"eps": "nonneg_inf"}),
    "plan_sweep": lazy(lambda: ((md.validation.get_scenario("STD-GaussHS"),), {"samples": 10, "seed": 1,
                                                                                  "quick": True}), seed="seed"),
    "verdict": case(0.5, 0.4, 0.3, _kinds={"bound": "real_nan", "exact": "real_nan", "ci_low": "real_nan"}),
    "verdict_confidence": case(10),
    "worker_count": case(md.sweeps.SynchronousExecutor()),
    "saved_batches": case("/nonexistent-markovdp-dir", "BBGG-T1", _kinds={"name": "str"}),
    "run_sweep": lazy(lambda: ((md.validation.get_scenario("AAC-phi"),),
                               {"samples": 10, "seed": 1, "quick": True, "executor": "synchronous"}),
                      out="path", executor="executor", command="str", seed="seed"),
    "open_executor": case("synchronous", _enter=True, _kinds={"scheduler": "executor"}),
    "out_lock": Case(lambda: ((LOCK_DIR,), {}), {"command": "str"}, enter=True),
}

#: Public callables with no argument to check, and why.
EXEMPT: dict[str, str] = {
    **dict.fromkeys(["IncompatibleSpaces", "NoApplicableTheorem", "NoRule", "CheckpointsExist",
                     "SchedulerUnreachable", "MissingExtension"], "an exception class"),
    **dict.fromkeys(["EstimateLike", "SweepScenario"], "a typing Protocol"),
    **dict.fromkeys(["Bound", "Certificate", "NotApplicable", "Estimate", "WeightedEstimate", "KeyReuse",
                     "BernoulliLeCam", "SweepPlan", "PrivateTestTradeoff", "MaxMutualInformation", "BayesRisk",
                     "BayesLowerBound", "BernoulliBayesCurve", "FanoBound", "MeanLeCam", "L2MeanFano", "PackingCheck",
                     "KeyedSearch", "OptimisedCoupling"],
                    "a result record the library builds (its fields are outputs)"),
    **dict.fromkeys(["Scenario", "ScenarioVariable"], "a scenario declaration (checked by run_sweep/plan_sweep)"),
    **dict.fromkeys(["CheckpointStore", "checkpoint_store", "build_dataset", "write_dataset", "atomic_write",
                     "DaskExecutor"],
                    "sweep machinery under run_sweep (files and executors; tests/test_interrupts.py, test_cli.py)"),
}

#: The kinds that only some callables have (matrix_any etc.): their bad values.
BAD.update({
    "matrix_any": [*_ARRAY_COMMON, ("empty", np.zeros((0, 0))), ("inf", [[INF, 0.0], [0.0, 1.0]]),
                   ("1-D", [0.5, 0.5])],
    "kernel_or_matrix": [("None", None), ("float", 1.0), ("str", "x"), ("object", object()), ("1-D", [0.5, 0.5]),
                         ("not-stochastic", [[0.5, 0.6], [0.5, 0.5]]), ("nan", [[NAN, 1.0], [0.5, 0.5]])],
    "counts": [("negative", [-1, 3]), ("float", [0.5, 1.0]), ("str", "x"), ("None", None), ("nan", [NAN, 1.0]),
               ("empty", [])],
    "table": [("negative", [[0, -1], [1, 0]]), ("float", [[0.5, 1.0], [1.0, 0.0]]), ("str", "x"), ("None", None),
              ("1-D", [0, 1]), ("empty", np.zeros((0, 0), dtype=int))],
    "varargs_kernels": _OBJECT,
    "vector_opt": [("nan", [NAN]), ("str", "x"), ("complex", [1j]), ("inf", [INF]), ("wrong-length", [0.0, 1.0])],
    "str": [("None", None), ("int", 1), ("object", object())],
    "level": [*_INT_COMMON, ("zero", 0), ("past-the-last", 2)],  # a level j in 1..d − 1 (here d = 2)
    "int2_given": [bad for bad in _INT_COMMON if bad[0] != "None"] + [("zero", 0), ("one", 1)],  # None: default
    "rules": [("str", "BBGG-T1.1"), ("unknown", ("NO-SUCH-RULE",)), ("empty", ()), ("int", 1)],
    "path": [("float", 1.5), ("object", object())],
    "executor": [("int", 1), ("object", object()), ("unknown", "no-such-scheduler")],
    "seed": [("str", "x"), ("float", 1.5), ("negative", -1)],
    "mapping": [("None", None), ("float", 1.0), ("str", "x"), ("list", [1.0])],
    "real_nan": [("str", "1"), ("None", None), ("complex", 1 + 1j), ("object", object())],
    "rows": [*_ARRAY_COMMON, ("empty", []), ("inf", [INF, 0.5])],
    "object_opt": _OBJECT[1:],
    "channel_or_pair": [("None", None), ("float", 1.0), ("str", "x"), ("object", object()),
                        ("not-stochastic", [[0.5, 0.6], [0.5, 0.5]]), ("nan-eps", (NAN, 0.0)),
                        ("negative-eps", (-1.0, 0.0)), ("delta-above-one", (1.0, 1.5)), ("str-eps", ("1", 0.0))],
    # BBGG-T2-finite: an order in [1, inf] (1 is KL); omega and the coupling default to None
    "order1": [*_REAL_COMMON, ("-inf", -INF), ("half", 0.5), ("negative", -2.0), ("huge", 1e308)],
    "probvec_opt": [bad for bad in BAD["probvec"] if bad[0] != "None"] + [("wrong-length", [0.2, 0.3, 0.5])],
    "coupling_opt": [bad for bad in BAD["matrix"] if bad[0] != "None"] + [("wrong-marginal", [[0.5, 0.0], [0.0, 0.4]])],
})


# ---------------------------------------------------------------------------------------------------
# Calling with a timer
# ---------------------------------------------------------------------------------------------------

class CallTimedOut(BaseException):  # noqa: N818 - a BaseException, so no `except Exception` swallows it
    """The call ran past `LIMIT`."""


def _alarm(signum: int, frame: Any) -> None:
    raise CallTimedOut


def timed_call(func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], *,
               limit: float = LIMIT, cap_memory: bool = True) -> tuple[str, Any]:
    """("ok", result) | ("raised", exception) | ("timeout", None), with the address space capped."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    previous = signal.signal(signal.SIGALRM, _alarm)
    faulthandler.dump_traceback_later(HARD_LIMIT, exit=True)
    if cap_memory:
        resource.setrlimit(resource.RLIMIT_AS, (_mapped_bytes() + ADDRESS_SPACE_MARGIN, hard))
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", func(*args, **kwargs)
    except CallTimedOut:
        return "timeout", None
    except Exception as exc:  # noqa: BLE001 - every kind is classified by the caller
        return "raised", exc
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, previous)


def _mapped_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * resource.getpagesize()


def safe_repr(value: Any) -> str:
    try:
        return repr(value)[:80]
    except Exception as exc:  # noqa: BLE001 - a broken object's repr must not hide what was returned
        return f"<{type(value).__name__} whose repr raised {type(exc).__name__}>"


def is_clean_result(value: Any) -> bool:
    """A result a huge input may return: real, and no NaN in any float it carries."""
    if isinstance(value, (tuple, list)):
        return all(is_clean_result(v) for v in value)
    if isinstance(value, (bool, int, np.integer)) or value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return not math.isnan(value)
    if isinstance(value, np.ndarray):
        return not np.iscomplexobj(value) and not (value.dtype.kind == "f" and np.isnan(value).any())
    if isinstance(value, complex):
        return False
    return True  # an object (a kernel, a mechanism): built from a valid huge size


# ---------------------------------------------------------------------------------------------------
# The parametrisation
# ---------------------------------------------------------------------------------------------------

def parameters(func: Any) -> list[inspect.Parameter]:
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return []
    return [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD
            and not (p.kind is inspect.Parameter.VAR_POSITIONAL and p.name in {"args"})]


def kind_of(name: str, param: inspect.Parameter) -> str | None:
    return GOOD[name].kinds.get(param.name, PARAM_KINDS.get(param.name))


def cells() -> list[Any]:
    out = []
    for name in sorted(PUBLIC):
        if name not in GOOD:
            continue
        for param in parameters(PUBLIC[name]):
            out.append(pytest.param(name, param.name, id=f"{name}-{param.name}"))
    return out


def called(name: str) -> Callable[..., Any]:
    """The public callable, or for a context manager the call that also enters (and leaves) it."""
    func = PUBLIC[name]
    if not GOOD[name].enter:
        return func

    def enter(*args: Any, **kwargs: Any) -> Any:
        with func(*args, **kwargs) as value:
            return value

    return enter


def bind_bad(name: str, param_name: str, bad: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The case's valid arguments with `param_name` replaced by `bad` (passed by keyword when the parameter is
    keyword-capable and was not given positionally)."""
    func = PUBLIC[name]
    args, kwargs = GOOD[name].build()
    signature = inspect.signature(func)
    bound = signature.bind_partial(*args, **kwargs)
    param = signature.parameters[param_name]
    if param.kind is inspect.Parameter.VAR_POSITIONAL:
        bound.arguments[param_name] = (bad, *bound.arguments.get(param_name, ())[1:])
    else:
        bound.arguments[param_name] = bad
    return bound.args, bound.kwargs


def test_every_public_name_is_in_the_table():
    missing = sorted(n for n in PUBLIC if n not in GOOD and n not in EXEMPT and parameters(PUBLIC[n]))
    assert not missing, f"public callables with no GOOD case or EXEMPT reason: {missing}"
    stale = sorted(n for n in [*GOOD, *EXEMPT] if n not in PUBLIC)
    assert not stale, f"table entries that are no longer public: {stale}"
    both = sorted(set(GOOD) & set(EXEMPT))
    assert not both, both


def test_every_parameter_has_a_kind():
    unknown = [f"{name}({p.name})" for name in sorted(GOOD) if name in PUBLIC
               for p in parameters(PUBLIC[name]) if kind_of(name, p) not in BAD]
    assert not unknown, f"parameters with no kind in PARAM_KINDS or the case: {unknown}"


#: Names whose valid call ran in this process: numba has compiled what they use, so a bad call's 1 s is its own.
WARM: set[str] = set()


def valid_call(name: str) -> tuple[str, Any]:
    args, kwargs = GOOD[name].build()
    WARM.add(name)
    return timed_call(called(name), args, kwargs, limit=60.0, cap_memory=False)


@pytest.mark.parametrize("name", sorted(GOOD))
def test_the_valid_arguments_are_accepted(name):
    """The table's arguments are valid (else every bad call would pass for the wrong reason)."""
    status, value = valid_call(name)
    assert status == "ok", f"{name}{GOOD[name].build()} -> {status}: {value!r}"


@pytest.mark.parametrize(("name", "param_name"), cells())
def test_a_bad_argument_raises_naming_the_parameter(name, param_name):
    func = PUBLIC[name]
    param = inspect.signature(func).parameters[param_name]
    kind = kind_of(name, param)
    assert kind in BAD, f"{name}({param_name}): no kind"
    if name not in WARM:  # in any order (-k, xdist): compile first, outside the timer
        valid_call(name)
    problems = []
    for label, bad in BAD[kind]:
        if bad is None and param.default is None:
            continue  # None is the documented default
        args, kwargs = bind_bad(name, param_name, bad)
        status, value = timed_call(called(name), args, kwargs)
        shown = f"{name}({param_name}={bad!r}) [{label}]"
        if status == "timeout":
            problems.append(f"{shown}: still running after {LIMIT} s")
        elif status == "ok":
            if label not in HUGE_LABELS or not is_clean_result(value):
                problems.append(f"{shown}: returned {safe_repr(value)}")
        elif not isinstance(value, (ValueError, TypeError)):
            problems.append(f"{shown}: {type(value).__name__}: {value}")
        elif label in HUGE_LABELS:  # a size or value refused jointly with another parameter is fine
            if "` must be " not in str(value):
                problems.append(f"{shown}: {type(value).__name__} not in the message template: {value}")
        elif f"`{param_name}`" not in str(value):
            problems.append(f"{shown}: {type(value).__name__} not naming `{param_name}`: {value}")
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------------
# The issue's own examples, and the caps
# ---------------------------------------------------------------------------------------------------

ISSUE_EXAMPLES = [  # (call, error, the parameter the message names): issue 13 §2, as the red-team typed them
    (lambda: API.laplace_sum_kl(NAN, 1, 2), ValueError, "dist"),
    (lambda: API.gaussian_shift_rdp(2, 1, -1), ValueError, "sigma"),
    (lambda: API.gaussian_shift_rdp(-1, 1, 1), ValueError, "alpha"),
    (lambda: API.gaussian_shift_rdp(2 + 0j, 1, 1), TypeError, "alpha"),
    (lambda: API.circulant(0.5), ValueError, "law"),
    (lambda: API.rr_key_law(0, 1.0), ValueError, "k"),
    (lambda: API.added_key_law(2, 2.0, 1e9), ValueError, "eps_to"),
    (lambda: API.laplace_sum_renyi(1, 1, 2, 2.0), ValueError, "b"),
    (lambda: API.compare_key_reuse(API.RecoverableMechanism(3, 1.0, 1), 10**9), ValueError, "T"),
    (lambda: API.per_sample_epsilon(API.RandomizedResponse(3, 1), 3, 10**9), ValueError, "T"),
    (lambda: API.simulate(SDE1, API.EulerMaruyama(), np.zeros(4), t1=0.1, dt=1e-15, rng=0), ValueError, "dt"),
    (lambda: API.DiffusionSemigroup(SDE1, API.EulerMaruyama(), 1e-15).at(1.0).sample(np.zeros(3), rng=0),
     ValueError, "dt"),
    (lambda: API.le_cam_bound(np.eye(2), [0.6, 0.4], [0.4, 0.6], 10**9, theta0=0.4, theta1=0.6), ValueError, "n"),
    (lambda: API.draw_keys([0.5, 0.5], 10**9, rng=0), ValueError, "n"),
    (lambda: API.tensor_power(FK, 40), ValueError, "n"),
]


@pytest.mark.parametrize(("call", "error", "name"), ISSUE_EXAMPLES)
def test_the_issues_examples_raise_naming_the_parameter(call, error, name):
    status, value = timed_call(call, (), {})
    assert status == "raised" and isinstance(value, error), (status, value)
    assert f"`{name}` must be " in str(value)


def test_a_refused_size_names_the_parameter_the_size_and_the_override(monkeypatch):
    monkeypatch.setattr(_validation, "memory_cap_bytes", None)
    monkeypatch.setenv(_validation.MEMORY_CAP_ENV, "2G")
    assert _validation.memory_cap() == 2 * 2**30
    with pytest.raises(ValueError) as info:
        API.draw_keys([0.5, 0.5], 10**9, rng=0)
    text = str(info.value)
    assert text.startswith("`n` must be small enough") and "2 GiB" in text and "22.4 GiB" in text
    assert "MARKOVDP_MEMORY_CAP=32G" in text and text.endswith("got 1000000000.")
    monkeypatch.setenv(_validation.MEMORY_CAP_ENV, "64G")  # raised: the same call is let through to its check
    _validation.check_size("n", 10**9, 3 * 10**9)


def test_the_default_memory_cap_is_half_the_physical_memory(monkeypatch):
    monkeypatch.setattr(_validation, "memory_cap_bytes", None)
    monkeypatch.delenv(_validation.MEMORY_CAP_ENV, raising=False)
    with open("/proc/meminfo") as f:
        total_kib = int(next(line for line in f if line.startswith("MemTotal:")).split()[1])
    assert _validation.memory_cap() == pytest.approx(total_kib * 1024 / 2, rel=0.02)


@pytest.mark.parametrize("text", ["lots", "-1G", "0", "nanG"])
def test_a_bad_cap_in_the_environment_is_named(monkeypatch, text):
    monkeypatch.setattr(_validation, "memory_cap_bytes", None)
    monkeypatch.setattr(_validation, "work_cap_steps", None)
    monkeypatch.setenv(_validation.MEMORY_CAP_ENV, text)
    monkeypatch.setenv(_validation.WORK_CAP_ENV, text)
    with pytest.raises(ValueError, match=_validation.MEMORY_CAP_ENV):
        _validation.memory_cap()
    with pytest.raises(ValueError, match=_validation.WORK_CAP_ENV):
        _validation.work_cap()


def test_the_work_cap_refuses_hours_and_says_how_to_allow_them(monkeypatch):
    monkeypatch.setattr(_validation, "work_cap_steps", None)
    monkeypatch.setenv(_validation.WORK_CAP_ENV, "1e6")
    with pytest.raises(ValueError, match=r"`dt` must be small enough .* MARKOVDP_WORK_CAP=4e\+07\)"):
        API.simulate(SDE1, API.EulerMaruyama(), np.zeros(4), t1=1.0, dt=1e-6, rng=0)
    monkeypatch.setenv(_validation.WORK_CAP_ENV, "1e8")
    assert API.simulate(SDE1, API.EulerMaruyama(), np.zeros(4), t1=1.0, dt=1e-2, rng=0).shape[0] == 4


# ---------------------------------------------------------------------------------------------------
# Values at the extremes the walk reached (each against mpmath at 50 digits)
# ---------------------------------------------------------------------------------------------------

def mp_laplace_shift_rdp(alpha: float, z: float) -> float:
    """STD-LapRenyi: log(w1 e^(z(a−1)) + w2 e^(−z a))/(a − 1), w1 = a/(2a − 1), w2 = (a − 1)/(2a − 1)."""
    from mpmath import mp

    with mp.workdps(50):
        a, z = mp.mpf(alpha), mp.mpf(z)
        w1, w2 = a / (2 * a - 1), (a - 1) / (2 * a - 1)
        return float(mp.log(w1 * mp.exp(z * (a - 1)) + w2 * mp.exp(-z * a)) / (a - 1))


@pytest.mark.parametrize("alpha", [1e300, 8.4e307, 8.6e307, 1e308])
@pytest.mark.parametrize("z", [1e-3, 0.5, 1.0])
def test_laplace_shift_rdp_at_orders_where_2_alpha_overflows(alpha, z):
    assert API.laplace_shift_rdp(alpha, z, 1.0) == pytest.approx(mp_laplace_shift_rdp(alpha, z), rel=1e-14)


@pytest.mark.parametrize(("shift", "sigma"), [(1.0, 1e-150), (1e-160, 1e-160), (3e-170, 1e-160), (1e-200, 1.0),
                                              (1e-300, 1e-300), (2.0, 0.5)])
def test_gaussian_shift_rdp_where_a_square_leaves_the_normal_range(shift, sigma):
    from mpmath import mp

    with mp.workdps(50):
        exact = 2.5 * mp.mpf(shift) ** 2 / (2 * mp.mpf(sigma) ** 2)
    assert API.gaussian_shift_rdp(2.5, shift, sigma) == pytest.approx(float(exact), rel=4e-16, abs=0.0)


def test_a_sigma_whose_square_underflows_gives_inf_not_an_exception():
    assert API.gaussian_shift_rdp(2.0, 1.0, 1e-300) == math.inf
    assert API.lipschitz_chain_rdp(2.0, sensitivity=1.0, lipschitz=0.5, sigma=1e-300, r=2) == math.inf
    assert API.lipschitz_path_rdp(2.0, [0.5, 0.5], lipschitz=0.5, sigma=1e-300) == math.inf


@pytest.mark.parametrize("sigma", [1e-160, 1e-5, 1.0, 1e100])
def test_lipschitz_chain_rdp_against_mpmath_down_to_subnormal_squares(sigma):
    """BBGG-T4 (3): alpha Delta² L^(r+1) / (2 r sigma²); the path form BBGG-T4 (2) with equal steps."""
    from mpmath import mp

    with mp.workdps(50):
        exact = 2 * mp.mpf(0.7) ** 2 * mp.mpf(0.5) ** 4 / (2 * 3 * mp.mpf(sigma) ** 2)
        path = 2 * mp.mpf(0.5) ** 2 / (2 * mp.mpf(sigma) ** 2) * sum(mp.mpf(0.5) ** (2 * (3 - i)) * mp.mpf(0.2) ** 2
                                                                     for i in (1, 2, 3))
    chain = API.lipschitz_chain_rdp(2.0, sensitivity=0.7, lipschitz=0.5, sigma=sigma, r=3)
    assert chain == pytest.approx(float(exact), rel=1e-14)
    assert API.lipschitz_path_rdp(2.0, [0.2, 0.2, 0.2], lipschitz=0.5, sigma=sigma) == pytest.approx(float(path),
                                                                                                    rel=1e-14)


@pytest.mark.parametrize("sigma", [1e-300, 1.0])
def test_noisy_sgd_with_a_full_contraction_is_zero_never_nan(sigma):
    """eta = 2/(beta + rho) with beta = rho: L² = 1 − 2 eta beta rho/(beta + rho) = 0, so eps_i = 0 for i < n
    (BBGG-T5, T5opt), also where 2 C²/sigma² is inf."""
    common = dict(lipschitz=1.0, smoothness=1.0, strong_convexity=1.0, eta=1.0, sigma=sigma, n=3, index=1)
    assert API.noisy_sgd_rdp(**common) == 0.0 and API.noisy_sgd_opt_rdp(**common) == 0.0
    assert API.noisy_sgd_rdp(**{**common, "index": 3}) == pytest.approx(2.0 / sigma**2 if sigma == 1.0 else math.inf)
